import { describe, expect, test } from "bun:test";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { BoundedEventStore } from "../../../src/mcp/event-store.ts";

const note = (n: number): JSONRPCMessage => ({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: { n } } });

async function replay(store: BoundedEventStore, after: string) {
  const sent: { id: string; message: JSONRPCMessage }[] = [];
  const stream = await store.replayEventsAfter(after, { send: async (id, message) => void sent.push({ id, message }) });
  return { stream, sent };
}

describe("BoundedEventStore", () => {
  test("replays the later events of the same stream, without priming events", async () => {
    const store = new BoundedEventStore();
    const primed = await store.storeEvent("s1", {} as JSONRPCMessage);
    const a = await store.storeEvent("s1", note(1));
    await store.storeEvent("s2", note(2));
    const b = await store.storeEvent("s1", note(3));
    expect(await store.getStreamIdForEventId(a)).toBe("s1");
    const { stream, sent } = await replay(store, primed);
    expect(stream).toBe("s1");
    expect(sent.map((e) => e.id)).toEqual([a, b]);
  });

  test("keeps at most maxEvents and maxBytes; an event no longer kept cannot be resumed from", async () => {
    const store = new BoundedEventStore(3, 10_000);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await store.storeEvent("s", note(i)));
    expect(store.size).toBe(3);
    expect(await store.getStreamIdForEventId(ids[0]!)).toBeUndefined();
    expect((await replay(store, ids[2]!)).sent.map((e) => e.id)).toEqual(ids.slice(3));

    const small = new BoundedEventStore(100, 200);
    for (let i = 0; i < 10; i++) await small.storeEvent("s", note(i));
    expect(small.size).toBeLessThan(10);
    expect(small.size).toBeGreaterThan(0);
  });
});
