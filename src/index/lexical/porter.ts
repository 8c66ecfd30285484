/**
 * The Porter stemmer exactly as FTS5's `porter` tokenizer applies it (SQLite's
 * ext/fts5/fts5_tokenize.c), for tokens that unicode61 has already folded: search marks the
 * matches of the notes it shows in JavaScript (src/index/lexical/marks.ts), and a word is marked only
 * when its stem is the one the index holds. FTS5's version differs from the textbook algorithm
 * in small ways this copies: a token under 3 or over 64 bytes is kept as it is, digits and
 * bytes outside ASCII count as consonants, and each step tries only the first rule whose suffix
 * the word ends with (and is longer than). test/unit/search/porter.test.ts compares it with FTS5
 * word by word.
 */

/** Tokens longer than this (bytes) are not stemmed. */
const MAX_TOKEN = 64;

const isVowel = (c: string, yIsVowel: boolean) => c === "a" || c === "e" || c === "i" || c === "o" || c === "u" || (yIsVowel && c === "y");

/**
 * Past one vowel-consonant sequence of w[from, end): the index after the consonant that ends it,
 * or 0 when there is none. `prevConsonant` says whether w[from - 1] was a consonant (a `y`
 * after a consonant is a vowel).
 */
function gobbleVC(w: string, from: number, end: number, prevConsonant: boolean): number {
  let consonant = prevConsonant;
  let i = from;
  for (; i < end; i++) {
    consonant = !isVowel(w[i]!, consonant);
    if (!consonant) break;
  }
  for (i++; i < end; i++) {
    consonant = !isVowel(w[i]!, consonant);
    if (consonant) return i + 1;
  }
  return 0;
}

/** Porter's measure m of the stem w[0, n): m > 0, m = 1 and m > 1. */
const mGt0 = (w: string, n: number) => gobbleVC(w, 0, n, false) !== 0;
function mGt1(w: string, n: number): boolean {
  const k = gobbleVC(w, 0, n, false);
  return k !== 0 && gobbleVC(w, k, n, true) !== 0;
}
function mEq1(w: string, n: number): boolean {
  const k = gobbleVC(w, 0, n, false);
  return k !== 0 && gobbleVC(w, k, n, true) === 0;
}

/** *o: the stem w[0, n) ends consonant-vowel-consonant, the last not w, x or y. */
function endsCvc(w: string, n: number): boolean {
  const last = w[n - 1];
  if (n < 3 || last === "w" || last === "x" || last === "y") return false;
  let consonant = false;
  let mask = 0;
  for (let i = 0; i < n; i++) {
    consonant = !isVowel(w[i]!, consonant);
    mask = ((mask << 1) | (consonant ? 1 : 0)) & 7;
  }
  return mask === 0b101;
}

/** *v*: the stem w[0, n) has a vowel (`y` is one anywhere but first). */
function hasVowel(w: string, n: number): boolean {
  for (let i = 0; i < n; i++) if (isVowel(w[i]!, i > 0)) return true;
  return false;
}

type Condition = (w: string, n: number) => boolean;
/** A suffix, the condition its stem must meet, and what replaces it. */
type Rule = [suffix: string, when: Condition, replacement: string];

const mGt1AndSOrT: Condition = (w, n) => (w[n - 1] === "s" || w[n - 1] === "t") && mGt1(w, n);

const STEP2 = byNextToLast([
  ["ational", mGt0, "ate"],
  ["tional", mGt0, "tion"],
  ["enci", mGt0, "ence"],
  ["anci", mGt0, "ance"],
  ["izer", mGt0, "ize"],
  ["logi", mGt0, "log"],
  ["bli", mGt0, "ble"],
  ["alli", mGt0, "al"],
  ["entli", mGt0, "ent"],
  ["eli", mGt0, "e"],
  ["ousli", mGt0, "ous"],
  ["ization", mGt0, "ize"],
  ["ation", mGt0, "ate"],
  ["ator", mGt0, "ate"],
  ["alism", mGt0, "al"],
  ["iveness", mGt0, "ive"],
  ["fulness", mGt0, "ful"],
  ["ousness", mGt0, "ous"],
  ["aliti", mGt0, "al"],
  ["iviti", mGt0, "ive"],
  ["biliti", mGt0, "ble"],
]);

const STEP3 = byNextToLast([
  ["ical", mGt0, "ic"],
  ["ness", mGt0, ""],
  ["icate", mGt0, "ic"],
  ["iciti", mGt0, "ic"],
  ["ful", mGt0, ""],
  ["ative", mGt0, ""],
  ["alize", mGt0, "al"],
]);

const STEP4 = byNextToLast([
  ["al", mGt1, ""],
  ["ance", mGt1, ""],
  ["ence", mGt1, ""],
  ["er", mGt1, ""],
  ["ic", mGt1, ""],
  ["able", mGt1, ""],
  ["ible", mGt1, ""],
  ["ant", mGt1, ""],
  ["ement", mGt1, ""],
  ["ment", mGt1, ""],
  ["ent", mGt1, ""],
  ["ion", mGt1AndSOrT, ""],
  ["ou", mGt1, ""],
  ["ism", mGt1, ""],
  ["ate", mGt1, ""],
  ["iti", mGt1, ""],
  ["ous", mGt1, ""],
  ["ive", mGt1, ""],
  ["ize", mGt1, ""],
]);

/**
 * A step's rules by their suffix's next-to-last letter, as FTS5 dispatches them: the first rule
 * of that letter whose suffix the word ends with (and is longer than) decides, applied when its
 * condition holds, and no later rule is tried either way (`ement` before `ment` before `ent`).
 */
function byNextToLast(rules: Rule[]): Map<string, Rule[]> {
  const out = new Map<string, Rule[]>();
  for (const rule of rules) {
    const key = rule[0][rule[0].length - 2]!;
    out.set(key, [...(out.get(key) ?? []), rule]);
  }
  return out;
}

function applyFirst(w: string, rules: Map<string, Rule[]>): string {
  for (const [suffix, when, replacement] of rules.get(w[w.length - 2]!) ?? []) {
    if (w.length <= suffix.length || !w.endsWith(suffix)) continue;
    const stem = w.length - suffix.length;
    return when(w, stem) ? w.slice(0, stem) + replacement : w;
  }
  return w;
}

/** Step 1b: -eed, -ed, -ing; true in `cut` when -ed or -ing went (step 1b's second part follows). */
function step1b(w: string): { w: string; cut: boolean } {
  const n = w.length;
  if (n > 3 && w.endsWith("eed")) return { w: mGt0(w, n - 3) ? w.slice(0, n - 1) : w, cut: false };
  if (n > 2 && w.endsWith("ed")) return hasVowel(w, n - 2) ? { w: w.slice(0, n - 2), cut: true } : { w, cut: false };
  if (n > 3 && w.endsWith("ing")) return hasVowel(w, n - 3) ? { w: w.slice(0, n - 3), cut: true } : { w, cut: false };
  return { w, cut: false };
}

/**
 * The stem FTS5 indexes for a token (as unicode61 folds it). FTS5 stems the token's UTF-8 bytes:
 * a letter outside ASCII is two or three consonants there, which counts for the length bounds
 * and for *o, so such a token is stemmed as its bytes.
 */
export function porterStem(token: string): string {
  if (!/\P{ASCII}/u.test(token)) return stemBytes(token);
  return Buffer.from(stemBytes(Buffer.from(token, "utf8").toString("latin1")), "latin1").toString("utf8");
}

/** The stemmer over a token's bytes, one character per byte (bytes outside ASCII are never vowels). */
function stemBytes(token: string): string {
  if (token.length < 3 || token.length > MAX_TOKEN) return token;
  let w = token;

  // Step 1a: -sses, -ies, -s.
  if (w.endsWith("s")) {
    const n = w.length;
    if (w[n - 2] === "e") w = (n > 4 && w[n - 4] === "s" && w[n - 3] === "s") || (n > 3 && w[n - 3] === "i") ? w.slice(0, n - 2) : w.slice(0, n - 1);
    else if (w[n - 2] !== "s") w = w.slice(0, n - 1);
  }

  const b = step1b(w);
  w = b.w;
  if (b.cut) {
    const n = w.length;
    if (n > 2 && (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz"))) w += "e";
    else {
      const c = w[n - 1]!;
      if (!isVowel(c, false) && c !== "l" && c !== "s" && c !== "z" && c === w[n - 2]) w = w.slice(0, n - 1);
      else if (mEq1(w, n) && endsCvc(w, n)) w += "e";
    }
  }

  // Step 1c: y → i after a vowel.
  if (w.endsWith("y") && hasVowel(w, w.length - 1)) w = `${w.slice(0, -1)}i`;

  w = applyFirst(w, STEP2);
  w = applyFirst(w, STEP3);
  w = applyFirst(w, STEP4);

  // Step 5a: a final e goes when m > 1, or m = 1 and not *o.
  if (w.endsWith("e")) {
    const n = w.length - 1;
    if (mGt1(w, n) || (mEq1(w, n) && !endsCvc(w, n))) w = w.slice(0, n);
  }
  // Step 5b: -ll → -l when m > 1.
  if (w.length > 1 && w.endsWith("ll") && mGt1(w, w.length - 1)) w = w.slice(0, -1);
  return w;
}
