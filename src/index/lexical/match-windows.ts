/**
 * The parts of a note's body that can hold a match, for FTS5 to mark in place of the whole body.
 * Search marks the notes it shows with highlight() in a scratch FTS5 table (the index keeps no
 * text), and tokenizing whole notes there was most of a search's time; these windows get exactly
 * the marks the whole body gets (docs/decisions.md, "Marking only what can match").
 *
 * Why exactly: a word can match a query term (a folded Porter stem) only if it starts with the
 * term less its last letter. Porter rewrites a word's end: it drops suffixes, and the letters it
 * writes instead (y → i, ational → ate, bility → ble, +e after at/bl/iz) differ from the word in
 * the last letter of the stem at most (bility's two are cut back to one by the final e rule). So
 * every run of letters and digits that contains such a key is kept, and every run with a
 * character outside ASCII (diacritic folding may turn it into any key). What lies between two
 * kept runs stays as it is when it holds no letter or digit, and otherwise becomes one
 * placeholder token, so a phrase never joins words the body kept apart. Phrases, prefixes and
 * NOT then match the windows as they match the body.
 */

/** A token of its own for unicode61 (private use is a token category) that no term matches. */
const PLACEHOLDER_CHAR = "\uE000";
const PLACEHOLDER = ` ${PLACEHOLDER_CHAR} `;

/** Letters at the end of a Porter stem that may differ from its word, at most. */
const STEM_REWRITE = 1;

export interface Span {
  start: number;
  end: number;
}

export interface MatchWindows {
  /** What FTS5 tokenizes in place of the body. */
  text: string;
  /** Pieces of `text` copied from the body, in order: text[at, at + length) is body[from, from + length). */
  pieces: { at: number; from: number; length: number }[];
}

/**
 * What a word must contain to match one of the query's terms: one of its keys (the term less its
 * last letter, in any case) or a character outside ASCII. Null when that would narrow nothing
 * (no terms, a term of one letter, or one the placeholder could match).
 */
export function keyFinder(terms: string[]): RegExp | null {
  const keys = terms.map((t) => t.slice(0, Math.max(0, t.length - STEM_REWRITE)));
  if (!keys.length || keys.some((k) => k.length === 0 || k.includes(PLACEHOLDER_CHAR))) return null;
  // Without the u flag, `i` folds ASCII letters only to ASCII letters: other characters are found by the class.
  return new RegExp(`${[...new Set(keys)].map(escapeRegExp).join("|")}|[^\\x00-\\x7f]`, "gi");
}

/** The windows of `body` that can hold a word the finder finds (null: the whole body). */
export function matchWindows(body: string, finder: RegExp | null): MatchWindows {
  if (finder === null) return { text: body, pieces: [{ at: 0, from: 0, length: body.length }] };
  const pieces: MatchWindows["pieces"] = [];
  let text = "";
  let from = -1;
  let to = -1;
  const close = () => {
    if (from < 0) return;
    if (text) text += PLACEHOLDER;
    pieces.push({ at: text.length, from, length: to - from });
    text += body.slice(from, to);
  };
  for (const [start, end] of keptRuns(body, finder)) {
    if (from >= 0 && !hasWordChar(body, to, start)) {
      to = end;
      continue;
    }
    close();
    [from, to] = [start, end];
  }
  close();
  return { text, pieces };
}

/** Where a span of the windows' text lies in the body (a match never crosses a placeholder). */
export function bodySpan(windows: MatchWindows, span: Span): Span {
  const { pieces } = windows;
  let lo = 0;
  let hi = pieces.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (pieces[mid]!.at <= span.start) lo = mid;
    else hi = mid - 1;
  }
  const shift = pieces[lo]!.from - pieces[lo]!.at;
  return { start: span.start + shift, end: span.end + shift };
}

/** The maximal runs of word characters that hold something the finder finds, in order. */
function keptRuns(body: string, finder: RegExp): [number, number][] {
  const runs: [number, number][] = [];
  finder.lastIndex = 0;
  for (let found = finder.exec(body); found; found = finder.exec(body)) {
    let start = found.index;
    while (start > 0 && isWordChar(body.charCodeAt(start - 1))) start--;
    let end = found.index;
    while (end < body.length && isWordChar(body.charCodeAt(end))) end++;
    if (end > start) runs.push([start, end]);
    finder.lastIndex = Math.max(finder.lastIndex, end);
  }
  return runs;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Word characters as far as cutting goes: ASCII letters and digits, and anything outside ASCII
 * (a window never ends inside what might be a token). ASCII punctuation and spaces separate.
 */
function isWordChar(code: number): boolean {
  return code >= 0x80 || (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** True when body[from, to) holds a letter or a digit: at least one token. */
function hasWordChar(body: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (isWordChar(body.charCodeAt(i))) return true;
  return false;
}
