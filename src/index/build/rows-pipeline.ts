import { MessageChannel, type MessagePort, receiveMessageOnPort } from "node:worker_threads";
import { IndxError } from "../../core/errors.ts";
import { debugLog, logEvent } from "../../core/log.ts";
import type { ScannedFile } from "../../vault/scan.ts";
import { DocumentReader, type DocumentSettings } from "./document-rows.ts";
import { type FileRows, fileRows } from "./file-rows.ts";
import { decodeRows } from "./rows-codec.ts";
import { CONSUMED, PRODUCED, type RowsBatch, type RowsRequest, SIGNAL_CELLS, SLOT_BYTES, SLOTS, STARTED, STOP } from "./rows-protocol.ts";

/** The rows of an index pass's files, batch by batch in the order of the pass. */
export interface RowSource {
  /** The rows of these files: the pass's next batch. Null for a file that could not be read. */
  next(batch: ScannedFile[]): (FileRows | null)[];
  close(): void;
}

export interface RowSourceOptions {
  root: string;
  maxNoteBytes: number;
  documents: DocumentSettings | null;
  /** The etag the index holds for a file, or null. */
  storedEtag(path: string): string | null;
}

/** Computes each batch when asked, on the calling thread. */
export class InlineRows implements RowSource {
  private readonly documents: DocumentReader | null;

  constructor(private readonly o: RowSourceOptions) {
    this.documents = o.documents ? new DocumentReader(o.documents) : null;
  }

  next(batch: ScannedFile[]): (FileRows | null)[] {
    const { root, maxNoteBytes } = this.o;
    return batch.map((f) => fileRows(root, f, { maxNoteBytes, storedEtag: this.o.storedEtag(f.path), documents: this.documents }));
  }

  close(): void {
    this.documents?.close();
  }
}

/** How long the writer waits for a rows worker to start before it computes the rows itself. */
const START_TIMEOUT_MS = 10_000;

/**
 * Computes the rows of a whole pass in a rows worker (rows-worker.ts), a few batches ahead of
 * the writer, so reading and parsing use the second core while the writer inserts. The calling
 * thread stays synchronous: it blocks on a shared counter, takes each batch's note off a message
 * port and reads the batch from a shared slot (docs/decisions.md, "Building a large vault"). A
 * worker that does not start in time (it could not load) leaves the work to the calling thread,
 * as InlineRows does it.
 */
export class WorkerRows implements RowSource {
  private readonly signal = new Int32Array(new SharedArrayBuffer(SIGNAL_CELLS * Int32Array.BYTES_PER_ELEMENT));
  private readonly slots = Array.from({ length: SLOTS }, () => new SharedArrayBuffer(SLOT_BYTES));
  private readonly port: MessagePort;
  private worker: Worker | null;
  private inline: InlineRows | null = null;
  private taken = 0;

  constructor(
    private readonly o: RowSourceOptions,
    files: ScannedFile[],
    /** Where each batch the writer will ask for ends (an index into `files`, exclusive). */
    ends: number[],
  ) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(new URL("./rows-worker.ts", import.meta.url));
    const request: RowsRequest = {
      root: o.root,
      maxNoteBytes: o.maxNoteBytes,
      documents: o.documents,
      files,
      storedEtags: files.map((f) => o.storedEtag(f.path)),
      ends,
      signal: this.signal,
      slots: this.slots,
      port: port2,
    };
    this.worker.postMessage(request, [port2]);
  }

  /** False once the worker failed to start and this thread computes the rows. */
  get threaded(): boolean {
    return this.inline === null;
  }

  next(batch: ScannedFile[]): (FileRows | null)[] {
    if (!this.inline && !this.started()) {
      this.close();
      this.inline = new InlineRows(this.o);
      // Said, not silent: the pass still completes, at about half the speed of a large build.
      logEvent("index.rows_worker_unavailable", { fallback: "this pass reads and parses on the writer's thread" });
    }
    if (this.inline) return this.inline.next(batch);
    const message = this.receive();
    if ("error" in message) {
      debugLog("rows worker failed", { error: message.error });
      throw new IndxError("internal", "An internal error occurred. Re-run with INDX_DEBUG=1 for details.");
    }
    const slot = this.taken++ % SLOTS;
    if (message.grown) this.slots[slot] = message.grown;
    const rows = decodeRows(new Uint8Array(this.slots[slot]!, 0, message.length));
    // Read: the worker may write the slot again.
    Atomics.add(this.signal, CONSUMED, 1);
    Atomics.notify(this.signal, CONSUMED);
    if (rows.length !== batch.length) throw new IndxError("internal", "The rows worker answered another batch than the one asked for.");
    return rows;
  }

  close(): void {
    this.inline?.close();
    Atomics.store(this.signal, STOP, 1);
    Atomics.notify(this.signal, CONSUMED);
    this.worker?.terminate();
    this.worker = null;
    this.port.close();
  }

  private started(): boolean {
    if (Atomics.load(this.signal, STARTED)) return true;
    return Atomics.wait(this.signal, STARTED, 0, START_TIMEOUT_MS) !== "timed-out";
  }

  private receive(): RowsBatch {
    for (;;) {
      // Read the count before looking: a batch posted after the look moves it, and wait() returns at once.
      // The worker counts a batch after posting it, so a counted batch is on the port.
      const produced = Atomics.load(this.signal, PRODUCED);
      const received = receiveMessageOnPort(this.port);
      if (received) {
        const batch: RowsBatch = received.message;
        return batch;
      }
      Atomics.wait(this.signal, PRODUCED, produced);
    }
  }
}
