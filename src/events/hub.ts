import { EventLog } from "./log.ts";
import type { NewEvent, VaultEvent } from "./types.ts";

export type EventListener = (event: VaultEvent) => void;

/**
 * The one place events are born: stamped, appended to events.log, and handed to live listeners
 * (the SSE stream of /v1/events). A failing listener never stops the others or the write.
 */
export class EventHub {
  private readonly listeners = new Set<EventListener>();
  private seq = 0;

  constructor(private readonly log: EventLog | null) {}

  emit(event: NewEvent): VaultEvent {
    const full: VaultEvent = { id: `${Date.now()}-${++this.seq}`, time: new Date().toISOString(), ...event };
    this.log?.append(full);
    for (const fn of this.listeners) {
      try {
        fn(full);
      } catch {}
    }
    return full;
  }

  subscribe(fn: EventListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}
