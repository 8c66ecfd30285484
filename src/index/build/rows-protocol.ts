import type { ScannedFile } from "../../vault/scan.ts";
import type { DocumentSettings } from "./document-rows.ts";

/** The one message the main thread sends a rows worker: everything it computes, in order. */
export interface RowsRequest {
  root: string;
  maxNoteBytes: number;
  /** Which PDFs and DOCX files have their text extracted; null: none. */
  documents: DocumentSettings | null;
  files: ScannedFile[];
  /** The etag the index holds for each file, or null: equal bytes are not parsed again. */
  storedEtags: (string | null)[];
  /** Where each batch ends (an index into `files`, exclusive): the writer's transactions, one message each. */
  ends: number[];
  /** Cells of SIGNAL_CELLS below. */
  signal: Int32Array;
  /** Batch k is written into slots[k % SLOTS] (rows-codec.ts). */
  slots: SharedArrayBuffer[];
  /** The batches come back on this port, one message each (RowsBatch). */
  port: MessagePort;
}

/**
 * A batch is ready: its length in its slot, and the slot's new buffer when the batch did not fit
 * the old one. Or what went wrong.
 */
export type RowsBatch = { length: number; grown: SharedArrayBuffer | null } | { error: string };

/** Cells of the shared signal array. */
export const STARTED = 0;
/** Batches posted by the worker. */
export const PRODUCED = 1;
/** Batches taken by the writer. */
export const CONSUMED = 2;
/** Non-zero: the writer stopped listening. */
export const STOP = 3;
export const SIGNAL_CELLS = 4;

/** Batches the worker may compute ahead of the writer: enough to keep both busy, few enough to bound memory. */
export const AHEAD = 2;
/** The batches being written, waiting, and being read. */
export const SLOTS = AHEAD + 1;
/** A slot's first size: a batch of 250 typical notes takes 2–3 MB. */
export const SLOT_BYTES = 4 * 1024 * 1024;
