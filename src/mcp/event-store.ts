import type { EventId, EventStore, StreamId } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

interface StoredEvent {
  streamId: StreamId;
  message: JSONRPCMessage;
  bytes: number;
}

/**
 * One session's SSE events, kept so that a client whose stream dropped can resume with
 * Last-Event-ID. Bounded by count and by size: the oldest events go first, and a client that
 * resumes from an event no longer kept is refused (it then starts a new stream) rather than
 * silently missing what came in between.
 */
export class BoundedEventStore implements EventStore {
  private readonly events = new Map<EventId, StoredEvent>();
  private sequence = 0;
  private bytes = 0;

  constructor(
    private readonly maxEvents = 256,
    private readonly maxBytes = 1024 * 1024,
  ) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const id = `${streamId}_${++this.sequence}`;
    const bytes = JSON.stringify(message).length;
    this.events.set(id, { streamId, message, bytes });
    this.bytes += bytes;
    this.prune();
    return id;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.events.get(eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const last = this.events.get(lastEventId);
    if (!last) return "";
    let after = false;
    for (const [id, event] of this.events) {
      if (id === lastEventId) after = true;
      // A priming event (an id with empty data) carries no message to replay.
      else if (after && event.streamId === last.streamId && "jsonrpc" in event.message) await send(id, event.message);
    }
    return last.streamId;
  }

  get size(): number {
    return this.events.size;
  }

  private prune(): void {
    for (const [id, event] of this.events) {
      if (this.events.size <= this.maxEvents && this.bytes <= this.maxBytes) return;
      this.events.delete(id);
      this.bytes -= event.bytes;
    }
  }
}
