/** The fake AI server's notion of words: lowercased, crude stemming, stopwords dropped. */
const STOP = new Set(
  "a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with what which who how does do".split(
    " ",
  ),
);

export function fakeTokens(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((w) => w.length > 1 && !STOP.has(w))
    .map((w) => (w.length > 4 && w.endsWith("s") ? w.slice(0, -1) : w));
}
