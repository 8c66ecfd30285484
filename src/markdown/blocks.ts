/**
 * Block identifiers (docs/obsidian.md, Block ids): ` ^id` at the end of a paragraph's or list
 * item's last line, or a line that is only `^id` (it attaches to the preceding block). Ids match
 * `[A-Za-z0-9-]+`. Whether the line really is the block's last line is decided by the scanner
 * (scanner.ts).
 */
import { isJsSpace, trimEndIndex } from "./chars.ts";

function isIdChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45;
}

/**
 * The block id written at the end of [contentStart, end), or null. The `^` must follow whitespace
 * or be the first character of the line's content.
 */
export function blockIdAtLineEnd(text: string, contentStart: number, end: number): string | null {
  const e = trimEndIndex(text, contentStart, end);
  let i = e;
  while (i > contentStart && isIdChar(text.charCodeAt(i - 1))) i--;
  if (i === e || i - 1 < contentStart || text.charCodeAt(i - 1) !== 94 /* ^ */) return null;
  const caret = i - 1;
  if (caret > contentStart && !isJsSpace(text.charCodeAt(caret - 1))) return null;
  return text.slice(i, e);
}

/** Block-id identity (ids are case-insensitive). */
export function blockKey(id: string): string {
  return id.toLowerCase();
}
