/** Word count: whitespace-separated tokens; each CJK ideograph or kana counts as one word. */
import { isJsSpace } from "./chars.ts";

/** Hiragana, katakana and CJK ideographs (Hangul is space-separated, so it counts per word). */
function isCjkChar(c: number): boolean {
  return (c >= 0x3040 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xf900 && c <= 0xfaff);
}

/** Tokens in text[from, to): runs of non-whitespace, plus one per CJK character. */
export function countWords(text: string, from: number, to: number): number {
  let count = 0;
  let inWord = false;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      if (c <= 32) inWord = false;
      else if (!inWord) {
        count++;
        inWord = true;
      }
    } else if (isJsSpace(c) || (c >= 0x3000 && c <= 0x303f) /* CJK punctuation */) {
      inWord = false;
    } else if (isCjkChar(c)) {
      count++;
      inWord = false;
    } else if (!inWord) {
      count++;
      inWord = true;
    }
  }
  return count;
}
