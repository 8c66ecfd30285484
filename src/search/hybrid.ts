import type { RankedChunk } from "../index/queries/fts.ts";
import type { RankedHit } from "./results.ts";

/** Reciprocal rank fusion constant (docs/search.md, Hybrid; the RRF paper's k). */
export const RRF_K = 60;
/** Top-rank bonus (docs/search.md, Hybrid): #1 in any list, and #2–3. Keeps exact matches on top. */
export const BONUS_FIRST = 0.05;
export const BONUS_TOP3 = 0.02;

export interface FusedNote {
  fileId: number;
  chunkId: number;
  /** The chunk's fused score: Σ 1/(k + rank + 1) over the lists, plus the bonus. */
  fused: number;
  /** 1-based rank of the best chunk in each list, null when absent. */
  ranks: (number | null)[];
}

/**
 * Reciprocal rank fusion at chunk level, then grouped to notes by their best fused chunk (so a
 * note's heading is the section that won). Ties break on note id for a stable order.
 */
export function fuse(lists: RankedChunk[][], k = RRF_K): FusedNote[] {
  const chunks = new Map<number, { fileId: number; fused: number; ranks: (number | null)[]; best: number }>();
  lists.forEach((list, li) => {
    const seen = new Set<number>();
    list.forEach((c, rank) => {
      if (seen.has(c.chunkId)) return;
      seen.add(c.chunkId);
      let e = chunks.get(c.chunkId);
      if (!e) chunks.set(c.chunkId, (e = { fileId: c.fileId, fused: 0, ranks: lists.map(() => null), best: Infinity }));
      e.fused += 1 / (k + rank + 1);
      e.ranks[li] = rank + 1;
      e.best = Math.min(e.best, rank);
    });
  });
  const notes = new Map<number, FusedNote>();
  for (const [chunkId, e] of chunks) {
    const fused = e.fused + (e.best === 0 ? BONUS_FIRST : e.best <= 2 ? BONUS_TOP3 : 0);
    const prev = notes.get(e.fileId);
    if (!prev || fused > prev.fused || (fused === prev.fused && chunkId < prev.chunkId))
      notes.set(e.fileId, { fileId: e.fileId, chunkId, fused, ranks: e.ranks });
  }
  return [...notes.values()].sort((a, b) => b.fused - a.fused || a.fileId - b.fileId);
}

/** The best fused score possible with n lists: first in every one, plus the bonus. */
export const maxFused = (lists: number, k = RRF_K) => lists / (k + 1) + BONUS_FIRST;

export function hybridReason(n: FusedNote, names: string[]): string {
  const parts = n.ranks.map((r, i) => (r === null ? null : `${names[i]} #${r}`)).filter(Boolean);
  return `hybrid (${parts.join(", ")})`;
}

export function toHits(notes: FusedNote[], names: string[], scoreOf: (n: FusedNote) => number): RankedHit[] {
  return notes.map((n) => ({ fileId: n.fileId, chunkId: n.chunkId, score: scoreOf(n), reason: hybridReason(n, names) }));
}
