import type { RankedChunk, ScoredChunk } from "../index/queries/fts.ts";
import type { IndexStore } from "../index/store.ts";
import { compileQuery, queryParts } from "./query.ts";

export interface LexicalPage {
  /** Notes found, each pointing at its best chunk. */
  hits: ScoredChunk[];
  hasMore: boolean;
  /** The compiled FTS5 expression (null when the query had no searchable terms). */
  match: string | null;
  cjk: string[];
}

/** Substring hits a CJK term may add to a lexical page. */
const CJK_SUBSTRING_LIMIT = 1000;

/**
 * BM25 over chunks, grouped to notes by their best chunk. Notes outside `allowed` are filtered
 * inside SQL so LIMIT still holds. CJK runs also get a substring pass, because unicode61 keeps a
 * run of Han/Kana/Hangul as one token and a word inside it would otherwise never match.
 */
export function lexicalSearch(
  index: IndexStore,
  q: string,
  opts: { offset: number; limit: number; allowed: Set<number> | null; excludeFileIds?: number[] },
): LexicalPage {
  const compiled = compileQuery(q);
  const want = opts.offset + opts.limit + 1;
  const scope = { allowed: opts.allowed, excluded: excludedNotes(index, q, opts.excludeFileIds) };
  if (compiled.empty || opts.allowed?.size === 0) return { hits: [], hasMore: false, match: compiled.match, cjk: compiled.cjk };

  const best = new Map<number, ScoredChunk>();
  const collect = (rows: ScoredChunk[]) => {
    for (const r of rows) {
      const prev = best.get(r.fileId);
      if (!prev || r.bm25 < prev.bm25) best.set(r.fileId, r);
    }
  };

  if (compiled.match) {
    // Notes have several chunks: fetch more chunks than notes wanted, and widen until enough distinct notes.
    let fetch = want * 4 + 20;
    while (true) {
      const rows = index.fts.scored(compiled.match, scope, fetch);
      best.clear();
      collect(rows);
      if (rows.length < fetch || best.size >= want) break;
      fetch *= 4;
    }
  }

  if (compiled.cjk.length) {
    const floor = best.size ? Math.max(...[...best.values()].map((h) => h.bm25)) : 0;
    for (const term of compiled.cjk) {
      const rows = index.fts.containing(term, scope, CJK_SUBSTRING_LIMIT);
      // Substring hits rank after every BM25 hit: they carry no term statistics.
      for (const r of rows) if (!best.has(r.fileId)) best.set(r.fileId, { ...r, bm25: Math.min(floor, 0) + 1e-6 });
    }
  }

  const ranked = [...best.values()].sort((a, b) => a.bm25 - b.bm25 || a.fileId - b.fileId);
  return {
    hits: ranked.slice(opts.offset, opts.offset + opts.limit),
    hasMore: ranked.length > opts.offset + opts.limit,
    match: compiled.match,
    cjk: compiled.cjk,
  };
}

/** An excluded item excludes every note that has it in any section, not just that section. */
function excludedNotes(index: IndexStore, q: string, excludeFileIds: number[] = []): number[] {
  const { excluded } = queryParts(q);
  return excluded.length ? [...excludeFileIds, ...index.fts.filesMatching(excluded.join(" OR "))] : excludeFileIds;
}

/** Maps bm25 (negative, unbounded) onto [0, 1): query-independent and monotonic. */
export function normalizeScore(bm25: number): number {
  const s = Math.abs(bm25);
  return Math.round((s / (1 + s)) * 10000) / 10000;
}

/**
 * The lexical list of hybrid search: the best `limit` chunks by BM25 (not grouped to notes),
 * then CJK substring hits. Chunk level, because fusion happens per chunk (docs/search.md, Hybrid).
 */
export function lexicalChunks(
  index: IndexStore,
  q: string,
  opts: { limit: number; allowed: Set<number> | null; excludeFileIds?: number[] },
): { chunks: RankedChunk[]; match: string | null; cjk: string[] } {
  const compiled = compileQuery(q);
  if (compiled.empty || opts.allowed?.size === 0) return { chunks: [], match: compiled.match, cjk: compiled.cjk };
  const scope = { allowed: opts.allowed, excluded: excludedNotes(index, q, opts.excludeFileIds) };
  const out: RankedChunk[] = [];
  const seen = new Set<number>();
  if (compiled.match) {
    for (const r of index.fts.ranked(compiled.match, scope, opts.limit)) {
      seen.add(r.chunkId);
      out.push(r);
    }
  }
  for (const term of compiled.cjk) {
    if (out.length >= opts.limit) break;
    for (const r of index.fts.containing(term, scope, opts.limit)) {
      if (seen.has(r.chunkId) || out.length >= opts.limit) continue;
      seen.add(r.chunkId);
      out.push(r);
    }
  }
  return { chunks: out, match: compiled.match, cjk: compiled.cjk };
}
