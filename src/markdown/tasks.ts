/** List items and tasks: `- [ ] text`, `* [x] text`, `1. [/] text` (any one status character). */
import { isAsciiDigit, isSpaceOrTab, skipSpaces, trimEndIndex } from "./chars.ts";

export interface ListItemMatch {
  /** Index right after the marker and its following spaces (the item's content). */
  contentStart: number;
  /** Task status character, or null when the item is not a task. */
  status: string | null;
  /** [textStart, textEnd) of the task text (meaningful only for tasks). */
  textStart: number;
  textEnd: number;
}

/** List item marker at `p` (first non-space char): `-`, `*`, `+`, or 1–9 digits + `.`/`)`. */
export function listItemAt(text: string, p: number, end: number): ListItemMatch | null {
  const c = text.charCodeAt(p);
  let m = p;
  if (c === 45 || c === 42 || c === 43) m = p + 1;
  else if (isAsciiDigit(c)) {
    let d = p;
    while (d < end && d - p < 9 && isAsciiDigit(text.charCodeAt(d))) d++;
    const x = text.charCodeAt(d);
    if (x !== 46 && x !== 41) return null;
    m = d + 1;
  } else return null;
  if (m < end && !isSpaceOrTab(text.charCodeAt(m))) return null;
  const contentStart = skipSpaces(text, m, end);
  // Task checkbox: `[c]` followed by whitespace or the end of the line.
  if (
    contentStart + 2 < end &&
    text.charCodeAt(contentStart) === 91 &&
    text.charCodeAt(contentStart + 2) === 93 &&
    (contentStart + 3 === end || isSpaceOrTab(text.charCodeAt(contentStart + 3)))
  ) {
    const ts = skipSpaces(text, contentStart + 3, end);
    return { contentStart, status: text.charAt(contentStart + 1), textStart: ts, textEnd: trimEndIndex(text, ts, end) };
  }
  return { contentStart, status: null, textStart: contentStart, textEnd: contentStart };
}

/**
 * CommonMark: a list item that would start a list inside a paragraph must have content, and an
 * ordered one must start at 1; otherwise the line (`4. text`, `-`) continues the paragraph.
 */
export function mayInterruptParagraph(text: string, p: number, item: ListItemMatch, end: number): boolean {
  if (trimEndIndex(text, item.contentStart, end) === item.contentStart) return false;
  const c = text.charCodeAt(p);
  return c === 45 || c === 42 || c === 43 || (c === 49 /* 1 */ && !isAsciiDigit(text.charCodeAt(p + 1)));
}
