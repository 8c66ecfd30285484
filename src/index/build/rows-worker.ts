/**
 * A rows worker: reads, parses and computes the rows of one index pass's files (file-rows.ts)
 * while the writer on the calling thread inserts the batches before them (rows-pipeline.ts). It
 * runs at most AHEAD batches ahead, so a pass over any number of files holds a few batches in
 * memory. An entrypoint of its own in the compiled binary (scripts/build.ts).
 */
import { edenGC, fullGC } from "bun:jsc";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { compressNoteRecord } from "../storage/note-text.ts";
import { RECORD_AT } from "../storage/rows.ts";
import { DocumentReader } from "./document-rows.ts";
import { fileRows, readsWhole } from "./file-rows.ts";
import { encodeRows } from "./rows-codec.ts";
import { AHEAD, CONSUMED, PRODUCED, type RowsBatch, type RowsRequest, SLOTS, STARTED, STOP } from "./rows-protocol.ts";

declare const self: Worker;

const FULL_GC_EVERY = 8;

/**
 * How much the share of a batch's records this worker compresses moves per batch. Which thread
 * has more to do depends on the machine and the vault (on one, the writer waited on the worker;
 * on the next, the worker waited 4.5 s of a 14 s load on the writer), so the worker takes over
 * the writer's compressing while it finds itself waiting, and hands it back when it is not.
 */
const SHARE_STEP = 0.25;

self.onmessage = async (event: MessageEvent<RowsRequest>) => {
  const r = event.data;
  const { signal, port } = r;
  const post = (batch: RowsBatch) => {
    port.postMessage(batch);
    Atomics.add(signal, PRODUCED, 1);
    Atomics.notify(signal, PRODUCED);
  };
  Atomics.store(signal, STARTED, 1);
  Atomics.notify(signal, STARTED);
  const documents = r.documents ? new DocumentReader(r.documents) : null;
  try {
    const slots: Uint8Array[] = r.slots.map((b) => new Uint8Array(b));
    let reading = readAhead(r, 0);
    let share = 0;
    for (let k = 0; k < r.ends.length; k++) {
      const bytes = await reading;
      // The next batch's files are read while this one is parsed.
      reading = readAhead(r, k + 1);
      const room = waitForRoom(signal, k);
      if (room === "stopped") return;
      // Ahead of the writer: take more of its compressing; behind it: leave more to it.
      share = Math.min(1, Math.max(0, share + (room === "waited" ? SHARE_STEP : -SHARE_STEP)));
      post(writeBatch(r, k, bytes, slots, k % SLOTS, share, documents));
      // The batch's rows are garbage now, and young: collecting them at once keeps this thread's
      // memory flat. (Collected in the batch's own frame, the stack still pointed at them.) The
      // bytes read ahead outlive eden collections (a promise handed them over): a full collection
      // every FULL_GC_EVERY batches frees them, without which a 100,000-note build peaked at 379
      // MiB instead of about 220.
      if (k % FULL_GC_EVERY === FULL_GC_EVERY - 1) fullGC();
      else edenGC();
    }
  } catch (err) {
    post({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  } finally {
    documents?.close();
  }
};

/**
 * The bytes of a batch's files, read concurrently (null where fileRows() reads none, or the read
 * failed: it tries again and reports the file). Read one by one, a vault out of the page cache
 * cost the worker most of a build: 100,000 files took 8.2 s to read cold, 1.3 s cached; 5.6 s and
 * 0.7 s read 250 at a time, and then behind the parsing of the batch before.
 */
function readAhead(r: RowsRequest, k: number): Promise<(Uint8Array | null)[]> {
  return Promise.all(
    filesOf(r, k).map((f) => (readsWhole(f, r.maxNoteBytes, r.documents) ? readFile(join(r.root, f.path)).catch(() => null) : Promise.resolve(null))),
  );
}

/** The files of batch k (none past the last). */
function filesOf(r: RowsRequest, k: number): RowsRequest["files"] {
  return k < r.ends.length ? r.files.slice(k ? r.ends[k - 1] : 0, r.ends[k]) : [];
}

/**
 * Computes the rows of batch k's files, compresses the records of the first `share` of them, and
 * writes them into a slot (a larger one when they do not fit).
 */
function writeBatch(
  r: RowsRequest,
  k: number,
  bytes: (Uint8Array | null)[],
  slots: Uint8Array[],
  slot: number,
  share: number,
  documents: DocumentReader | null,
): RowsBatch {
  const start = k ? r.ends[k - 1]! : 0;
  const rows = filesOf(r, k).map((f, i) =>
    fileRows(r.root, f, { maxNoteBytes: r.maxNoteBytes, storedEtag: r.storedEtags[start + i], bytes: bytes[i], documents }),
  );
  const compressed = Math.round(share * rows.length);
  for (const row of rows.slice(0, compressed)) {
    const values = row?.note?.note;
    const record = values?.[RECORD_AT];
    if (values && record) values[RECORD_AT] = compressNoteRecord(record);
  }
  let grown: SharedArrayBuffer | null = null;
  const { buffer, length } = encodeRows(rows, slots[slot]!, (size) => {
    grown = new SharedArrayBuffer(size);
    return new Uint8Array(grown);
  });
  slots[slot] = buffer;
  return { length, grown };
}

/**
 * Blocks until the writer has read batch k - AHEAD (whose slot batch k reuses). Says whether it
 * had to wait for that, or that the writer stopped listening.
 */
function waitForRoom(signal: Int32Array, k: number): "free" | "waited" | "stopped" {
  let waited = false;
  for (;;) {
    if (Atomics.load(signal, STOP)) return "stopped";
    const consumed = Atomics.load(signal, CONSUMED);
    if (k - consumed < AHEAD) return waited ? "waited" : "free";
    Atomics.wait(signal, CONSUMED, consumed);
    waited = true;
  }
}
