/**
 * Block identifiers (docs/obsidian.md, Block ids): ` ^id` at the end of a paragraph's or list
 * item's last line, or a line that is only `^id` (it attaches to the preceding block). Ids match
 * `[A-Za-z0-9-]+`. Whether the line really is the block's last line is decided by the scanner
 * (scanner.ts).
 */
import { isJsSpace, trimEndIndex } from "./chars.ts";
import type { BlockId } from "./types.ts";

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

/** A block id seen at the end of a line, kept until the next line shows whether its block ends there. */
export class PendingBlockIds {
  readonly blocks: BlockId[] = [];
  private id: string | null = null;
  private line = 0;

  hold(id: string, line: number): void {
    this.id = id;
    this.line = line;
  }

  /** The block goes on: the id was not at its end. */
  drop(): void {
    this.id = null;
  }

  /** The block ended: the id held names it. */
  commit(): void {
    if (this.id !== null) this.blocks.push({ id: this.id, line: this.line });
    this.id = null;
  }
}
