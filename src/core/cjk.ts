/**
 * Han, Kana and Hangul runs. unicode61 keeps a run as one token, so a word inside it never
 * matches; search finds such words in an index of the runs' overlapping character pairs instead.
 * The Kana marks Unicode files under Common/Inherited (ー, ゛) belong to the run.
 */
export const CJK_RUN = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\u3099-\u309C\u30FC\uFF70]+/gu;

/** Every character CJK_RUN takes is at U+1100 or above (or a surrogate): a text without one has no run to look for. */
const MAYBE_CJK = /[\u1100-\uffff]/;

/**
 * The CJK runs of a text as overlapping character pairs, then the run's last character alone, so
 * every character starts a token. Space-separated.
 */
export function cjkGrams(text: string): string {
  if (!MAYBE_CJK.test(text)) return "";
  return (text.match(CJK_RUN) ?? []).map((run) => pairs(Array.from(run)).join(" ")).join(" ");
}

function pairs(chars: string[]): string[] {
  const out: string[] = [];
  chars.forEach((char, i) => {
    const next = chars[i + 1];
    out.push(next === undefined ? char : char + next);
  });
  return out;
}

/**
 * The FTS5 expression over cjkGrams() that finds a CJK run inside longer runs: the phrase of its
 * pairs, or for one character any token it starts.
 */
export function cjkGramQuery(run: string): string {
  const chars = Array.from(run);
  if (chars.length === 1) return `"${chars[0]}"*`;
  return `"${pairs(chars).slice(0, -1).join(" ")}"`;
}
