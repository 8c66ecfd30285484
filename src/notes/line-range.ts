import { IndxError } from "../core/errors.ts";

/** Part of a note by line numbers: the lines as on disk, with their line breaks. */
export interface LineRange {
  /** First line held, 1-based. */
  from: number;
  /** Last line held; from − 1 when none is (an empty note). */
  to: number;
  /** Lines in the whole note: a final line break does not start another line. */
  total_lines: number;
  text: string;
}

export function countLines(text: string): number {
  if (text === "") return 0;
  let lines = text.endsWith("\n") ? 0 : 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return lines;
}

/** Offset where 1-based line `line` starts (text.length past the last line). */
function lineStart(text: string, line: number): number {
  let at = 0;
  for (let n = 1; n < line; n++) {
    const nl = text.indexOf("\n", at);
    if (nl === -1) return text.length;
    at = nl + 1;
  }
  return at;
}

/**
 * Lines `from` … `from + count − 1` (to the end without a count), clipped at the last line. A
 * range that starts past the end is refused with the note's line count, so the caller can page.
 */
export function sliceLines(text: string, from: number, count?: number): LineRange {
  const total = countLines(text);
  if (from > Math.max(total, 1))
    throw new IndxError("validation_failed", `Line ${from} is past the end: the note has ${total} lines.`, { field: "from", total_lines: total });
  const to = Math.min(total, count === undefined ? total : from + count - 1);
  const start = lineStart(text, from);
  const end = to < from ? start : lineStart(text, to + 1);
  return { from, to, total_lines: total, text: text.slice(start, end) };
}
