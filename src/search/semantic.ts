import type { VectorStore } from "../embeddings/store.ts";
import type { IndexStore } from "../index/storage/store.ts";
import type { RankedHit } from "./results.ts";

/** Filters small enough to score every allowed chunk exactly instead of widening a KNN. */
const EXACT_FILTER_CHUNKS = 4000;
const MAX_K = 4096;

export interface VectorChunk {
  chunkId: number;
  fileId: number;
  distance: number;
}

/**
 * The vector list: the chunks nearest to `query`, best first. Vectors are keyed by content
 * hash, so one vector may stand for several chunks (copies): each gets the same distance.
 * Filters (`allowed`) and exclusions apply here; a small filter is scored exactly, a large one
 * widens the KNN until `limit` chunks pass or nothing more can be had.
 */
export function vectorChunks(
  index: IndexStore,
  store: VectorStore,
  query: ArrayLike<number>,
  opts: { limit: number; allowed: Set<number> | null; excludeFileIds?: number[]; distinctNotes?: number },
): VectorChunk[] {
  if (opts.allowed?.size === 0 || opts.limit <= 0) return [];
  const excluded = new Set(opts.excludeFileIds ?? []);
  const expand = (hits: { hash: string; distance: number }[]): VectorChunk[] => {
    const dist = new Map(hits.map((h) => [h.hash, h.distance]));
    return index.chunks
      .withHashes(hits.map((h) => h.hash))
      .filter((r) => !excluded.has(r.fileId) && (!opts.allowed || opts.allowed.has(r.fileId)))
      .flatMap((r) => {
        const distance = dist.get(r.hash);
        return distance === undefined ? [] : [{ chunkId: r.chunkId, fileId: r.fileId, distance }];
      })
      .sort((a, b) => a.distance - b.distance || a.chunkId - b.chunkId);
  };

  if (opts.allowed) {
    const hashes = index.chunks.hashesOfFiles(opts.allowed);
    if (hashes.length <= EXACT_FILTER_CHUNKS) return expand(store.nearest(query, Math.min(hashes.length, opts.limit * 2 + 50), hashes)).slice(0, opts.limit);
  }
  const wantNotes = opts.distinctNotes ?? 0;
  let k = Math.min(MAX_K, Math.max(opts.limit, 10));
  while (true) {
    const hits = store.nearest(query, k);
    const chunks = expand(hits);
    const notes = new Set(chunks.map((c) => c.fileId)).size;
    if ((chunks.length >= opts.limit && notes >= wantNotes) || hits.length < k || k >= MAX_K) return chunks.slice(0, opts.limit);
    k = Math.min(MAX_K, k * 4);
  }
}

/** Cosine distance (0…2) to a 0…1 score: the cosine similarity, floored at 0. */
export const similarity = (distance: number) => Math.max(0, Math.min(1, 1 - distance));

/** Groups the vector list to notes by their best chunk, and pages it. */
export function semanticPage(chunks: VectorChunk[], offset: number, limit: number): { hits: RankedHit[]; hasMore: boolean } {
  const best = new Map<number, VectorChunk>();
  for (const c of chunks) if (!best.has(c.fileId)) best.set(c.fileId, c);
  const ranked = [...best.values()];
  return {
    hits: ranked.slice(offset, offset + limit).map((c) => ({ fileId: c.fileId, chunkId: c.chunkId, score: similarity(c.distance), reason: "semantic match" })),
    hasMore: ranked.length > offset + limit,
  };
}

/** The mean of some vectors, normalised: a note's direction for `related`. */
export function centroid(vectors: Float32Array[]): Float32Array | null {
  const [first] = vectors;
  if (first === undefined) return null;
  const out = new Float32Array(first.length);
  // Every vector has the model's dimensions, first's among them.
  for (const v of vectors) for (const [i, x] of v.entries()) out[i] = (out[i] ?? 0) + x;
  let n = 0;
  for (const x of out) n += x * x;
  n = Math.sqrt(n) || 1;
  return out.map((x) => x / n);
}
