import type { RankedHit } from "./results.ts";

/** Reciprocal rank fusion constant (docs/search.md, Hybrid; the RRF paper's k). */
export const RRF_K = 60;
/** Top-rank bonus (docs/search.md, Hybrid): #1 in any list, and #2–3. Keeps exact matches on top. */
export const BONUS_FIRST = 0.05;
export const BONUS_TOP3 = 0.02;

/** An entry of a ranked list: a note, and the section it was found by (null: not a section). */
export interface RankedNote {
  fileId: number;
  chunkId: number | null;
}

export interface FusedNote {
  fileId: number;
  /** The section of the list where the note ranks best (null when that list ranks notes). */
  chunkId: number | null;
  /** The note's fused score: Σ 1/(k + rank + 1) over the lists, plus the bonus. */
  fused: number;
  /** 1-based rank of the note in each list, null when absent. */
  ranks: (number | null)[];
}

/**
 * Reciprocal rank fusion of note lists, each weighted (1 by default): a list of sections counts
 * each note once, at its best section. The note shows the section of the list where it ranks best.
 * The top-rank bonus counts with the weight of the list that gave it. Ties break on note id for a
 * stable order.
 */
export function fuse(lists: RankedNote[][], weights: number[] = lists.map(() => 1)): FusedNote[] {
  const notes = new Map<number, FusedNote & { best: number; bonusWeight: number }>();
  lists.forEach((list, li) => {
    const w = weights[li] ?? 1;
    let rank = 0;
    for (const entry of list) {
      let n = notes.get(entry.fileId);
      if (n?.ranks[li] != null) continue;
      if (!n)
        notes.set(entry.fileId, (n = { fileId: entry.fileId, chunkId: entry.chunkId, fused: 0, ranks: lists.map(() => null), best: Infinity, bonusWeight: 0 }));
      n.fused += w / (RRF_K + rank + 1);
      n.ranks[li] = rank + 1;
      if (rank < n.best || (rank === n.best && w > n.bonusWeight)) [n.best, n.chunkId, n.bonusWeight] = [rank, entry.chunkId, w];
      rank++;
    }
  });
  return [...notes.values()]
    .map(({ best, bonusWeight, ...n }) => ({ ...n, fused: n.fused + bonusWeight * (best === 0 ? BONUS_FIRST : best <= 2 ? BONUS_TOP3 : 0) }))
    .sort((a, b) => b.fused - a.fused || a.fileId - b.fileId);
}

/** The best fused score possible with these list weights: first in every one, plus the bonus. */
export const maxFused = (weights: number[]) => weights.reduce((sum, w) => sum + w / (RRF_K + 1), 0) + BONUS_FIRST * Math.max(...weights);

export function hybridReason(n: FusedNote, names: string[]): string {
  const parts = n.ranks.map((r, i) => (r === null ? null : `${names[i]} #${r}`)).filter(Boolean);
  return `hybrid (${parts.join(", ")})`;
}

export function toHits(notes: FusedNote[], names: string[], scoreOf: (n: FusedNote) => number): RankedHit[] {
  return notes.map((n) => ({ fileId: n.fileId, chunkId: n.chunkId, score: scoreOf(n), reason: hybridReason(n, names) }));
}
