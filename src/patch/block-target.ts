/**
 * Block ids (docs/obsidian.md, Block ids): finding the paragraph or list item that carries `^id`.
 *
 * - ` ^id` at the end of a line: the block is the paragraph, the list item (its own lines; nested
 *   items below it stay), or the run of block-quote / callout lines that ends on that line.
 * - A line that is only `^id` after a blank line is a detached id: it names the block before it
 *   (a list, table, callout, code block…), which is the block replaced. The id line stays.
 */
import { IndxError } from "../core/errors.ts";
import { blockIdAtLineEnd, blockKey } from "../markdown/blocks.ts";
import { skipSpaces } from "../markdown/chars.ts";
import { isThematicBreakAt } from "../markdown/headings.ts";
import { listItemAt } from "../markdown/tasks.ts";
import { fenceContaining, lineStartOf, type NoteStructure } from "./structure.ts";
import { isBlankLineAt, lineContentEnd, nextLineStart } from "./text.ts";

export interface BlockTarget {
  /** The id as written in the note (its case is kept when the id is re-attached). */
  id: string;
  /** [start, end): the block's lines, line breaks included. */
  start: number;
  end: number;
  /** For a detached id: [start, end) of the `^id` line. */
  idLine: { start: number; end: number } | null;
}

const ID_SYNTAX = /^\^?[A-Za-z0-9-]+$/;

export function resolveBlock(s: NoteStructure, rawId: string): BlockTarget {
  const wanted = rawId.trim();
  if (!ID_SYNTAX.test(wanted)) {
    throw new IndxError("validation_failed", "block_id must be letters, digits and dashes, with or without a leading ^.", {
      block_id: rawId,
    });
  }
  const key = blockKey(wanted.replace(/^\^/, ""));
  const hits = s.blocks.filter((b) => blockKey(b.id) === key);
  if (hits.length > 1) {
    throw new IndxError("patch_target_ambiguous", `${hits.length} blocks carry that id.`, {
      block_id: rawId,
      candidates: hits.map((b) => ({ block_id: b.id, line: b.line })),
    });
  }
  const [hit] = hits;
  if (!hit) {
    throw new IndxError("patch_target_not_found", "No block in the note carries that id.", { block_id: rawId });
  }
  return targetFor(s, hit.id, hit.line - 1);
}

function targetFor(s: NoteStructure, id: string, idIndex: number): BlockTarget {
  const lineStart = lineStartOf(s.lineStarts, idIndex);
  const idLineEnd = nextLineStart(s.text, lineStart);
  if (isDetachedId(s, idIndex)) {
    let last = idIndex - 1;
    while (isBlankLineAt(s.text, lineStartOf(s.lineStarts, last))) last--;
    const first = detachedBlockFirstLine(s, last);
    return {
      id,
      start: lineStartOf(s.lineStarts, first),
      end: nextLineStart(s.text, lineStartOf(s.lineStarts, last)),
      idLine: { start: lineStart, end: idLineEnd },
    };
  }
  return { id, start: lineStartOf(s.lineStarts, ownBlockFirstLine(s, idIndex)), end: idLineEnd, idLine: null };
}

/** The line is only `^id`, after a blank line, with a non-heading block somewhere above it. */
function isDetachedId(s: NoteStructure, index: number): boolean {
  const start = lineStartOf(s.lineStarts, index);
  const end = lineContentEnd(s.text, start);
  const p = skipSpaces(s.text, start, end);
  if (s.text.charCodeAt(p) !== 94 /* ^ */ || blockIdAtLineEnd(s.text, p, end) === null) return false;
  if (index - 1 < s.bodyFirstLineIndex || !isBlankLineAt(s.text, lineStartOf(s.lineStarts, index - 1))) return false;
  let above = index - 1;
  while (above >= s.bodyFirstLineIndex && isBlankLineAt(s.text, lineStartOf(s.lineStarts, above))) above--;
  return above >= s.bodyFirstLineIndex && !s.headingLines.has(above);
}

/** True for a line that cannot be part of the paragraph/list item below it. */
function isBoundary(s: NoteStructure, index: number): boolean {
  if (index < s.bodyFirstLineIndex) return true;
  const start = lineStartOf(s.lineStarts, index);
  if (isBlankLineAt(s.text, start) || s.headingLines.has(index) || fenceContaining(s, index) !== null) return true;
  const end = lineContentEnd(s.text, start);
  return isThematicBreakAt(s.text, skipSpaces(s.text, start, end), end);
}

function firstNonSpace(s: NoteStructure, index: number): { p: number; end: number } {
  const start = lineStartOf(s.lineStarts, index);
  const end = lineContentEnd(s.text, start);
  return { p: skipSpaces(s.text, start, end), end };
}

function isListItemLine(s: NoteStructure, index: number): boolean {
  const { p, end } = firstNonSpace(s, index);
  return !isThematicBreakAt(s.text, p, end) && listItemAt(s.text, p, end) !== null;
}

function isQuoteLine(s: NoteStructure, index: number): boolean {
  return s.text.charCodeAt(firstNonSpace(s, index).p) === 62; /* > */
}

/** First line of the paragraph, list item or quote run that ends on line `last`. */
function ownBlockFirstLine(s: NoteStructure, last: number): number {
  const quote = isQuoteLine(s, last);
  let k = last;
  while (true) {
    if (!quote && isListItemLine(s, k)) return k;
    const above = k - 1;
    if (isBoundary(s, above) || (quote && !isQuoteLine(s, above))) return k;
    k = above;
  }
}

/**
 * First line of the block that ends on line `last` and a detached id names: the run of non-blank
 * lines ending there, widened to a whole fenced code block, and across the blank lines of a loose
 * list: the run after the gap continues the list above when it starts indented (more of an item)
 * or with a list item of the same kind (bullet character, or ordered delimiter) as the nearest
 * item above at that indent. A tight run is taken whole even if its bullets change.
 */
function detachedBlockFirstLine(s: NoteStructure, last: number): number {
  const joinable = (i: number) => i >= s.bodyFirstLineIndex && !s.headingLines.has(i);
  let k = last;
  while (true) {
    const fence = fenceContaining(s, k);
    if (fence !== null) k = fence[0];
    const above = k - 1;
    if (joinable(above) && !isBlankLineAt(s.text, lineStartOf(s.lineStarts, above))) {
      k = above;
      continue;
    }
    let m = above;
    while (m >= s.bodyFirstLineIndex && isBlankLineAt(s.text, lineStartOf(s.lineStarts, m))) m--;
    if (m < above && joinable(m) && continuesListAbove(s, k, m)) {
      k = m;
      continue;
    }
    return k;
  }
}

/** Whether the run starting at line `k` continues the list whose last line before the gap is `m`. */
function continuesListAbove(s: NoteStructure, k: number, m: number): boolean {
  if (!isListLike(s, m) || !isListLike(s, k)) return false;
  const first = firstNonSpace(s, k);
  const indent = first.p - lineStartOf(s.lineStarts, k);
  if (indent > 0 && !isListItemLine(s, k)) return true;
  const kind = listKind(s, k);
  // The nearest item above at this indent or less decides; loose lists may have blank lines too.
  for (let i = m; i >= s.bodyFirstLineIndex && !s.headingLines.has(i); i--) {
    if (isBlankLineAt(s.text, lineStartOf(s.lineStarts, i))) continue;
    if (!isListLike(s, i)) return false;
    const itemIndent = firstNonSpace(s, i).p - lineStartOf(s.lineStarts, i);
    if (itemIndent <= indent && isListItemLine(s, i)) return itemIndent === indent && listKind(s, i) === kind;
  }
  return false;
}

/** `-`, `*`, `+`, or the delimiter of an ordered item (`.` / `)`). */
function listKind(s: NoteStructure, index: number): string {
  const { p } = firstNonSpace(s, index);
  const c = s.text.charAt(p);
  if (c === "-" || c === "*" || c === "+") return c;
  let d = p;
  while (s.text.charCodeAt(d) >= 48 && s.text.charCodeAt(d) <= 57) d++;
  return s.text.charAt(d);
}

/** A list item line or an indented (continuation) line. */
function isListLike(s: NoteStructure, index: number): boolean {
  if (fenceContaining(s, index) !== null) return false;
  const start = lineStartOf(s.lineStarts, index);
  const c = s.text.charCodeAt(start);
  return c === 32 || c === 9 || isListItemLine(s, index);
}
