/**
 * "Did you mean": the known names closest to what was typed. Distance is Damerau–Levenshtein
 * (a swap of two neighbours counts once) on lower-cased text; a candidate qualifies within a
 * third of the typed length (at least 1, at most 3 edits), and only the nearest ones are named.
 * A typed word that is a prefix of a name counts as nearer than any edit.
 */
export function closest(typed: string, candidates: Iterable<string>, max = 3): string[] {
  const word = typed.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  const scored: { name: string; d: number }[] = [];
  for (const name of new Set(candidates)) {
    const lower = name.toLowerCase();
    const d = lower.startsWith(word) && word.length >= 2 ? 0.5 : distance(word, lower);
    if (d <= limit) scored.push({ name, d });
  }
  const best = Math.min(...scored.map((s) => s.d));
  return scored
    .filter((s) => s.d === best)
    .sort((a, b) => a.name.localeCompare(b.name))
    .slice(0, max)
    .map((s) => s.name);
}

/** " Did you mean x?" (or "x or y"), or "" when nothing is close. */
export function didYouMean(typed: string, candidates: Iterable<string>): string {
  const near = closest(typed, candidates);
  if (near.length === 0) return "";
  return ` Did you mean ${near.length === 1 ? near[0] : `${near.slice(0, -1).join(", ")} or ${near[near.length - 1]}`}?`;
}

function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 99;
  // d[i][j]: the distance between the first i characters of a and the first j of b, filled row by row.
  const d: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  const at = (i: number, j: number) => d[i]?.[j] ?? 99;
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    d.push(row);
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, at(i - 2, j - 2) + 1);
      row.push(v);
    }
  }
  return at(a.length, b.length);
}
