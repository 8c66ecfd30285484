import { statSync } from "node:fs";
import { randomHex } from "../core/random.ts";
import { followLog } from "./follow.ts";
import type { EventLog } from "./log.ts";
import { type EventsAfter, eventsAfter } from "./since.ts";
import { isAuditKind, type NewEvent, type VaultEvent } from "./types.ts";

export type EventListener = (event: VaultEvent) => void;

/**
 * The one place events are born: stamped, appended to events.log, and handed to live listeners
 * (the SSE stream of /v1/events). A failing listener never stops the others or the write.
 */
export class EventHub {
  private readonly listeners = new Set<EventListener>();
  private seq = 0;
  /** Tells this process's events from other processes' in the shared log. */
  private readonly tag = randomHex(4);
  private stopFollowing: (() => void) | null = null;

  constructor(private readonly log: EventLog | null) {}

  emit(event: NewEvent): VaultEvent {
    const full: VaultEvent = { id: `${Date.now()}-${this.tag}-${++this.seq}`, time: new Date().toISOString(), ...event };
    this.log?.append(full);
    this.deliver(full);
    return full;
  }

  /**
   * Also delivers the events other indx processes append to the log (serve and MCP call this:
   * a CLI write next to them must reach their SSE streams and subscriptions).
   */
  followOthers(): () => void {
    if (!this.log || this.stopFollowing) return () => {};
    const stop = followLog(this.log.file, (event) => {
      if (typeof event.id === "string" && !event.id.includes(`-${this.tag}-`)) this.deliver(event);
    });
    this.stopFollowing = stop;
    return () => {
      stop();
      this.stopFollowing = null;
    };
  }

  /** How far the shared log has grown (its size in bytes; 0 without a log): it moves whenever any indx process writes. */
  position(): number {
    if (!this.log) return 0;
    try {
      return statSync(this.log.file).size;
    } catch {
      return 0;
    }
  }

  /** The events of every indx process logged after `id` (since.ts); nothing is known without a log. */
  after(id: string): EventsAfter {
    if (!this.log) return { found: false, events: [] };
    const after = eventsAfter(this.log.file, id);
    // Audit events are the owner's record, never replayed to a stream (as deliver does for live ones).
    return { found: after.found, events: after.events.filter((e) => !isAuditKind(e.kind)) };
  }

  private deliver(event: VaultEvent): void {
    // Audit events are the owner's record (indx events), not news for every vault:read token.
    if (isAuditKind(event.kind)) return;
    for (const fn of this.listeners) {
      try {
        fn(event);
      } catch {}
    }
  }

  subscribe(fn: EventListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}
