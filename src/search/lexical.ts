import type { Database } from "bun:sqlite";
import { FTS_WEIGHTS } from "../index/schema.ts";
import { compileQuery } from "./query.ts";

/** One note found by lexical search, pointing at its best chunk. */
export interface LexicalHit {
  fileId: number;
  chunkId: number;
  /** bm25 as FTS5 returns it: negative, lower is better. */
  bm25: number;
}

export interface LexicalPage {
  hits: LexicalHit[];
  hasMore: boolean;
  /** The compiled FTS5 expression (null when the query had no searchable terms). */
  match: string | null;
  cjk: string[];
}

const W = FTS_WEIGHTS;
const RANK = `bm25(chunks_fts, ${W.title}, ${W.aliases}, ${W.tags}, ${W.headings}, ${W.body})`;

/**
 * BM25 over chunks, grouped to notes by their best chunk. Notes outside `allowed` are filtered
 * inside SQL so LIMIT still holds. CJK runs also get a substring pass, because unicode61 keeps a
 * run of Han/Kana/Hangul as one token and a word inside it would otherwise never match.
 */
export function lexicalSearch(
  db: Database,
  q: string,
  opts: { offset: number; limit: number; allowed: Set<number> | null; excludeFileIds?: number[] },
): LexicalPage {
  const compiled = compileQuery(q);
  const want = opts.offset + opts.limit + 1;
  const allowedJson = opts.allowed ? JSON.stringify([...opts.allowed]) : null;
  const excludedJson = JSON.stringify(opts.excludeFileIds ?? []);
  if (compiled.empty || opts.allowed?.size === 0) return { hits: [], hasMore: false, match: compiled.match, cjk: compiled.cjk };

  const best = new Map<number, LexicalHit>();
  const collect = (rows: { chunkId: number; fileId: number; bm25: number }[]) => {
    for (const r of rows) {
      const prev = best.get(r.fileId);
      if (!prev || r.bm25 < prev.bm25) best.set(r.fileId, r);
    }
  };

  if (compiled.match) {
    // Notes have several chunks: fetch more chunks than notes wanted, and widen until enough distinct notes.
    let fetch = want * 4 + 20;
    while (true) {
      const rows = db
        .query<{ chunkId: number; fileId: number; bm25: number }, [string, string | null, string, number]>(
          `SELECT c.id AS chunkId, c.file_id AS fileId, ${RANK} AS bm25
             FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
            WHERE chunks_fts MATCH ?1
              AND (?2 IS NULL OR c.file_id IN (SELECT value FROM json_each(?2)))
              AND c.file_id NOT IN (SELECT value FROM json_each(?3))
            ORDER BY bm25 LIMIT ?4`,
        )
        .all(compiled.match, allowedJson, excludedJson, fetch);
      best.clear();
      collect(rows);
      if (rows.length < fetch || best.size >= want) break;
      fetch *= 4;
    }
  }

  if (compiled.cjk.length) {
    const floor = best.size ? Math.max(...[...best.values()].map((h) => h.bm25)) : 0;
    for (const term of compiled.cjk) {
      const rows = db
        .query<{ chunkId: number; fileId: number }, [string, string | null, string]>(
          `SELECT id AS chunkId, file_id AS fileId FROM chunks
            WHERE instr(text, ?1) > 0
              AND (?2 IS NULL OR file_id IN (SELECT value FROM json_each(?2)))
              AND file_id NOT IN (SELECT value FROM json_each(?3))
            LIMIT 1000`,
        )
        .all(term, allowedJson, excludedJson);
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

/** Maps bm25 (negative, unbounded) onto [0, 1): query-independent and monotonic. */
export function normalizeScore(bm25: number): number {
  const s = Math.abs(bm25);
  return Math.round((s / (1 + s)) * 10000) / 10000;
}

export interface ChunkRank {
  chunkId: number;
  fileId: number;
}

/**
 * The lexical list of hybrid search: the best `limit` chunks by BM25 (not grouped to notes),
 * then CJK substring hits. Chunk level, because fusion happens per chunk (docs/search.md, Hybrid).
 */
export function lexicalChunks(
  db: Database,
  q: string,
  opts: { limit: number; allowed: Set<number> | null; excludeFileIds?: number[] },
): { chunks: ChunkRank[]; match: string | null; cjk: string[] } {
  const compiled = compileQuery(q);
  if (compiled.empty || opts.allowed?.size === 0) return { chunks: [], match: compiled.match, cjk: compiled.cjk };
  const allowedJson = opts.allowed ? JSON.stringify([...opts.allowed]) : null;
  const excludedJson = JSON.stringify(opts.excludeFileIds ?? []);
  const out: ChunkRank[] = [];
  const seen = new Set<number>();
  if (compiled.match) {
    for (const r of db
      .query<ChunkRank, [string, string | null, string, number]>(
        `SELECT c.id AS chunkId, c.file_id AS fileId
           FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
          WHERE chunks_fts MATCH ?1
            AND (?2 IS NULL OR c.file_id IN (SELECT value FROM json_each(?2)))
            AND c.file_id NOT IN (SELECT value FROM json_each(?3))
          ORDER BY ${RANK}, c.id LIMIT ?4`,
      )
      .all(compiled.match, allowedJson, excludedJson, opts.limit)) {
      seen.add(r.chunkId);
      out.push(r);
    }
  }
  for (const term of compiled.cjk) {
    if (out.length >= opts.limit) break;
    for (const r of db
      .query<ChunkRank, [string, string | null, string, number]>(
        `SELECT id AS chunkId, file_id AS fileId FROM chunks
          WHERE instr(text, ?1) > 0
            AND (?2 IS NULL OR file_id IN (SELECT value FROM json_each(?2)))
            AND file_id NOT IN (SELECT value FROM json_each(?3))
          LIMIT ?4`,
      )
      .all(term, allowedJson, excludedJson, opts.limit)) {
      if (seen.has(r.chunkId) || out.length >= opts.limit) continue;
      seen.add(r.chunkId);
      out.push(r);
    }
  }
  return { chunks: out, match: compiled.match, cjk: compiled.cjk };
}
