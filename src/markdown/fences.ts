/**
 * Fenced code blocks (CommonMark): an opening run of ≥3 backticks or tildes (backtick info strings
 * may not contain backticks); the closing fence uses the same character, is at least as long, and
 * has nothing but spaces after it. An unclosed fence runs to the end of the document.
 */
import { trimEndIndex } from "./chars.ts";

export interface FenceOpen {
  char: number; // 96 (`) or 126 (~)
  length: number;
}

export function fenceOpenAt(text: string, p: number, end: number): FenceOpen | null {
  const c = text.charCodeAt(p);
  if (c !== 96 && c !== 126) return null;
  let n = 1;
  while (p + n < end && text.charCodeAt(p + n) === c) n++;
  if (n < 3) return null;
  if (c === 96) {
    const info = text.indexOf("`", p + n);
    if (info >= 0 && info < end) return null;
  }
  return { char: c, length: n };
}

export function isFenceCloseAt(text: string, p: number, end: number, open: FenceOpen): boolean {
  let n = 0;
  while (p + n < end && text.charCodeAt(p + n) === open.char) n++;
  return n >= open.length && trimEndIndex(text, p + n, end) === p + n;
}
