/**
 * The plan of a multi-file write (note_move, rename_heading link updates, tag_rename): one
 * FileEdit per file, each carrying the etag of the bytes it was computed from so the write
 * pipeline can refuse with etag_mismatch when a planned file changed in between.
 */
import { etagOf } from "../core/hash.ts";
import { decodeUtf8, notUtf8 } from "./encoding.ts";

/** One changed line, for dry-run display. 1-based; whole lines without their line break. */
export interface LineChange {
  line: number;
  before: string;
  after: string;
}

export interface FileEdit {
  /** Vault-relative POSIX path. */
  path: string;
  /** etagOf(bytes the plan was computed from). */
  etag: string;
  /** The complete new file text. */
  text: string;
  changes: LineChange[];
}

/** Splits on LF, keeping a CR at the end of a line out of the displayed text. */
function displayLines(text: string): string[] {
  return text.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

/**
 * The lines that differ between two versions. Planned edits never add or remove line breaks, so
 * lines pair up one to one; when the counts differ (a caller-supplied text), the common head and
 * tail are skipped and the middle is paired in order, with "" standing in for a missing line.
 */
export function lineChanges(before: string, after: string): LineChange[] {
  const a = displayLines(before);
  const b = displayLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out: LineChange[] = [];
  const aMiddle = a.length - head - tail;
  const bMiddle = b.length - head - tail;
  for (let k = 0; k < Math.max(aMiddle, bMiddle); k++) {
    const x = k < aMiddle ? a[head + k] : undefined;
    const y = k < bMiddle ? b[head + k] : undefined;
    if (x === y) continue;
    out.push({ line: head + k + 1, before: x ?? "", after: y ?? "" });
  }
  return out;
}

/**
 * A FileEdit for `path`, or null when the text did not change. A file whose bytes are not UTF-8
 * cannot be edited (encoding_unsupported): its text was decoded lossily.
 */
export function fileEdit(path: string, original: string, text: string, originalBytes?: Uint8Array): FileEdit | null {
  if (text === original) return null;
  if (originalBytes && decodeUtf8(originalBytes) === null) throw notUtf8(path);
  return { path, etag: etagOf(originalBytes ?? original), text, changes: lineChanges(original, text) };
}

/** A replacement of text[start, end) by `text`. */
export interface Splice {
  start: number;
  end: number;
  text: string;
}

/** Applies non-overlapping splices (any order) to `text`; everything outside them stays byte for byte. */
export function applySplices(text: string, splices: readonly Splice[]): string {
  const sorted = [...splices].sort((a, b) => a.start - b.start);
  let out = "";
  let at = 0;
  for (const s of sorted) {
    if (s.start < at) throw new Error("overlapping splices");
    out += text.slice(at, s.start) + s.text;
    at = s.end;
  }
  return out + text.slice(at);
}
