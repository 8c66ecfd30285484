/**
 * Body tags (docs/obsidian.md, Tags). The tag body is exactly Obsidian's character class
 * `#([^\u2000-\u206F\u2E00-\u2E7F'!"#$%&()*+,.:;<=>?@^`{|}~\[\]\\\s]+)` (u flag), rejected when all
 * digits. A tag starts at a line/chunk start, after whitespace or an inline marker; see `tagMayStartAt`.
 */
import { isAsciiDigit, isAsciiPunct, isJsSpace } from "./chars.ts";

/** Obsidian's tag regex, for reference and tests. */
export const TAG_RE = /#([^\u2000-\u206F\u2E00-\u2E7F'!"#$%&()*+,.:;<=>?@^`{|}~[\]\\\s]+)/u;

const ASCII_OK = new Uint8Array(128);
{
  const excluded = "'!\"#$%&()*+,.:;<=>?@^`{|}~[]\\";
  for (let c = 0; c < 128; c++) {
    const ws = c === 32 || (c >= 9 && c <= 13);
    ASCII_OK[c] = ws || excluded.includes(String.fromCharCode(c)) ? 0 : 1;
  }
}

/** One UTF-16 code unit allowed in a tag body (surrogates are allowed, so emoji pass). */
export function isTagChar(c: number): boolean {
  if (c < 128) return ASCII_OK[c] === 1;
  if (c >= 0x2000 && c <= 0x206f) return false;
  if (c >= 0x2e00 && c <= 0x2e7f) return false;
  return !isJsSpace(c);
}

/**
 * May the `#` at `hash` start a tag, the inline chunk starting at `start`? At the chunk start,
 * after whitespace, or right after an inline marker (docs/obsidian.md, Tags): an emphasis or strike
 * run (`**#tag**`, `_#tag_`, `~~#tag~~`), a highlight `==`, a link-text bracket or a table pipe
 * (`[#tag](x)`, `| #tag |`). A marker run only opens when it is not glued to a word before it, as
 * CommonMark's left-flanking rule has it: `word#tag`, `2*#3`, `a_#b`, `x=#y` and `(#tag)` are not tags.
 */
export function tagMayStartAt(text: string, hash: number, start: number): boolean {
  if (hash === start) return true;
  const prev = text.charCodeAt(hash - 1);
  if (isJsSpace(prev) || prev === 91 /* [ */ || prev === 124 /* | */) return true;
  if (prev !== 42 /* * */ && prev !== 95 /* _ */ && prev !== 126 /* ~ */ && prev !== 61 /* = */) return false;
  let k = hash - 1;
  while (k > start && text.charCodeAt(k - 1) === prev) k--;
  if (prev === 61 && hash - k < 2) return false; // a highlight is `==`
  if (k === start) return true;
  const before = text.charCodeAt(k - 1);
  return isJsSpace(before) || isAsciiPunct(before);
}

/** End index (exclusive) of the tag body after the `#` at `hash`, or -1 when there is no tag. */
export function tagEndAt(text: string, hash: number, end: number): number {
  let j = hash + 1;
  let digitsOnly = true;
  while (j < end) {
    const c = text.charCodeAt(j);
    if (!isTagChar(c)) break;
    if (digitsOnly && !isAsciiDigit(c)) digitsOnly = false;
    j++;
  }
  if (j === hash + 1 || digitsOnly) return -1;
  return j;
}

/** Tag identity for de-duplication (tags are case-insensitive). */
export function tagKey(tag: string): string {
  return tag.toLowerCase();
}
