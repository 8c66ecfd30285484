/** Word count: whitespace-separated tokens; each CJK ideograph or kana counts as one word. */
import { isJsSpace } from "./chars.ts";

function isCjkChar(c: number): boolean {
  return (
    (c >= 0x3040 && c <= 0x30ff) || // hiragana, katakana
    (c >= 0x3400 && c <= 0x4dbf) || // CJK extension A
    (c >= 0x4e00 && c <= 0x9fff) || // CJK unified ideographs
    (c >= 0xf900 && c <= 0xfaff) // compatibility ideographs
  );
}

export function countWords(text: string, from = 0, to = text.length): number {
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
      continue;
    }
    if (isJsSpace(c) || (c >= 0x3000 && c <= 0x303f) /* CJK punctuation */) {
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
