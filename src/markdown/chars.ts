/** Character-code helpers shared by the scanners (all work on UTF-16 code units). */

export const TAB = 9;
export const CR = 13;
export const SPACE = 32;

/** Space or tab: the only whitespace that counts inside a Markdown line. */
export function isSpaceOrTab(c: number): boolean {
  return c === SPACE || c === TAB;
}

/** JavaScript `\s` (what the tag regex uses), for one UTF-16 code unit. */
export function isJsSpace(c: number): boolean {
  if (c < 128) return c === SPACE || (c >= TAB && c <= CR);
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

export function isAsciiDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** ASCII punctuation, i.e. what a backslash can escape in CommonMark. */
export function isAsciiPunct(c: number): boolean {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}

/** Index of the first non space/tab character in [from, end), or `end`. */
export function skipSpaces(text: string, from: number, end: number): number {
  let i = from;
  while (i < end && isSpaceOrTab(text.charCodeAt(i))) i++;
  return i;
}

/** End of [from, end) with trailing spaces/tabs removed. */
export function trimEndIndex(text: string, from: number, end: number): number {
  let e = end;
  while (e > from && isSpaceOrTab(text.charCodeAt(e - 1))) e--;
  return e;
}

/** True when [from, end) holds only spaces/tabs (or CR). */
export function isBlankRange(text: string, from: number, end: number): boolean {
  for (let i = from; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== SPACE && c !== TAB && c !== CR) return false;
  }
  return true;
}

/** 1-based line number of `index` given a starting line and offset (counts LFs in between). */
export function lineAt(text: string, fromIndex: number, fromLine: number, index: number): number {
  let line = fromLine;
  let i = text.indexOf("\n", fromIndex);
  while (i >= 0 && i < index) {
    line++;
    i = text.indexOf("\n", i + 1);
  }
  return line;
}
