/**
 * A rows worker: reads, parses and computes the rows of one index pass's files (file-rows.ts)
 * while the writer on the calling thread inserts the batches before them (rows-pipeline.ts). It
 * runs at most AHEAD batches ahead, so a pass over any number of files holds a few batches in
 * memory. An entrypoint of its own in the compiled binary (scripts/build.ts).
 */
import { edenGC } from "bun:jsc";
import { fileRows } from "./file-rows.ts";
import { encodeRows } from "./rows-codec.ts";
import { AHEAD, CONSUMED, PRODUCED, type RowsBatch, type RowsRequest, SLOTS, STARTED, STOP } from "./rows-protocol.ts";

declare const self: Worker;

self.onmessage = (event: MessageEvent<RowsRequest>) => {
  const r = event.data;
  const { signal, port } = r;
  const post = (batch: RowsBatch) => {
    port.postMessage(batch);
    Atomics.add(signal, PRODUCED, 1);
    Atomics.notify(signal, PRODUCED);
  };
  Atomics.store(signal, STARTED, 1);
  Atomics.notify(signal, STARTED);
  try {
    const slots: Uint8Array[] = r.slots.map((b) => new Uint8Array(b));
    for (let i = 0, k = 0; i < r.files.length; i += r.batch, k++) {
      if (!waitForRoom(signal, k)) return;
      post(writeBatch(r, i, slots, k % SLOTS));
      // The batch's rows are garbage now, and young: collecting them at once keeps this thread's
      // memory flat. (Collected in the batch's own frame, the stack still pointed at them.)
      edenGC();
    }
  } catch (err) {
    post({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
};

/** Computes the rows of the files from `start` and writes them into a slot (a larger one when they do not fit). */
function writeBatch(r: RowsRequest, start: number, slots: Uint8Array[], slot: number): RowsBatch {
  const rows = r.files.slice(start, start + r.batch).map((f, i) => fileRows(r.root, f, { maxNoteBytes: r.maxNoteBytes, storedEtag: r.storedEtags[start + i] }));
  let grown: SharedArrayBuffer | null = null;
  const { buffer, length } = encodeRows(rows, slots[slot]!, (size) => {
    grown = new SharedArrayBuffer(size);
    return new Uint8Array(grown);
  });
  slots[slot] = buffer;
  return { length, grown };
}

/** Blocks until the writer has read batch k - AHEAD (whose slot batch k reuses); false when it stopped listening. */
function waitForRoom(signal: Int32Array, k: number): boolean {
  for (;;) {
    if (Atomics.load(signal, STOP)) return false;
    const consumed = Atomics.load(signal, CONSUMED);
    if (k - consumed < AHEAD) return true;
    Atomics.wait(signal, CONSUMED, consumed);
  }
}
