/**
 * Headings (docs/obsidian.md, Headings): ATX and setext detection on a line, plus the
 * normalisations Obsidian uses to match headings in links.
 */
import { isSpaceOrTab, skipSpaces, trimEndIndex } from "./chars.ts";

export interface AtxMatch {
  level: number;
  /** [textStart, textEnd): the heading text, closing #s and surrounding spaces removed. */
  textStart: number;
  textEnd: number;
}

/**
 * ATX heading at `p` (first non-space character of the line, already checked for ≤3 spaces of
 * indent): 1–6 `#`, then a space/tab or the end of the line. Optional closing `#`s preceded by a
 * space are removed.
 */
export function atxHeadingAt(text: string, p: number, end: number): AtxMatch | null {
  let n = 0;
  while (p + n < end && text.charCodeAt(p + n) === 35) n++;
  if (n === 0 || n > 6) return null;
  const after = p + n;
  if (after < end && !isSpaceOrTab(text.charCodeAt(after))) return null;
  const s = skipSpaces(text, after, end);
  let e = trimEndIndex(text, s, end);
  // Closing sequence: a run of # at the end, preceded by a space/tab (or making up all the text).
  let k = e;
  while (k > s && text.charCodeAt(k - 1) === 35) k--;
  if (k < e && (k === s || isSpaceOrTab(text.charCodeAt(k - 1)))) e = trimEndIndex(text, s, k);
  return { level: n, textStart: s, textEnd: e };
}

/**
 * Setext underline at `p` (first non-space character, indent ≤3): returns 1 for `===`, 2 for
 * `---` (any run length, trailing spaces allowed, nothing else), else 0.
 */
export function setextLevelAt(text: string, p: number, end: number): number {
  const c = text.charCodeAt(p);
  if (c !== 61 && c !== 45) return 0;
  let i = p + 1;
  while (i < end && text.charCodeAt(i) === c) i++;
  if (trimEndIndex(text, i, end) !== i) return 0;
  return c === 61 ? 1 : 2;
}

/** Is there an ATX heading at `p` (the first character of a line's content)? */
export const isAtxHeading = (text: string, p: number, end: number): boolean => text.charCodeAt(p) === 35 && atxHeadingAt(text, p, end) !== null;

/** Setext heading text: the paragraph's lines, each trimmed, joined with `\n`. */
export function setextText(text: string, from: number, to: number): string {
  const out: string[] = [];
  for (const l of text.slice(from, to).split("\n")) {
    const t = l.trim();
    if (t !== "") out.push(t);
  }
  return out.join("\n");
}

/** Thematic break at `p`: three or more `-`, `*` or `_` with only spaces/tabs between. */
export function isThematicBreakAt(text: string, p: number, end: number): boolean {
  const c = text.charCodeAt(p);
  if (c !== 45 && c !== 42 && c !== 95) return false;
  let count = 0;
  for (let i = p; i < end; i++) {
    const d = text.charCodeAt(i);
    if (d === c) count++;
    else if (!isSpaceOrTab(d)) return false;
  }
  return count >= 3;
}

/** Obsidian's `stripHeading` (docs/obsidian.md, Headings): used for heading matching. */
export function stripHeading(h: string): string {
  return h
    .replace(/[!"#$%&()*+,.:;<=>?@^`{|}~/[\]\\\r\n]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** Case-insensitive heading identity: `stripHeading(h).toLowerCase()`. */
export function headingKey(h: string): string {
  return stripHeading(h).toLowerCase();
}

/** Obsidian's `stripHeadingForLink` (docs/obsidian.md, Link generation): what to write after `#` when generating a link. */
export function stripHeadingForLink(h: string): string {
  return h
    .replace(/([:#|^\\\r\n]|%%|\[\[|]])/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}
