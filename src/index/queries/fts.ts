import type { Database } from "bun:sqlite";
import { FTS_COLUMNS, FTS_WEIGHTS } from "../schema.ts";
import { type FileScope, jsonList } from "./lists.ts";

type FtsColumn = (typeof FTS_COLUMNS)[number];

export interface RankedChunk {
  chunkId: number;
  fileId: number;
}

export interface ScoredChunk extends RankedChunk {
  /** bm25 as FTS5 returns it: negative, lower is better. */
  bm25: number;
}

/** Where a chunk matched an FTS5 expression, and the body excerpt around the match. */
export interface ChunkHighlight {
  chunkId: number;
  columns: FtsColumn[];
  /** Body excerpt with **matches** (empty when the body has none). */
  snippet: string;
}

const W = FTS_WEIGHTS;
const RANK = `bm25(chunks_fts, ${W.title}, ${W.aliases}, ${W.tags}, ${W.headings}, ${W.body})`;
const MARK_OPEN = "\u0002";
const MARK_CLOSE = "\u0003";
const HIGHLIGHTS = FTS_COLUMNS.map((_, i) => `highlight(chunks_fts, ${i}, '${MARK_OPEN}', '${MARK_CLOSE}') AS h${i}`).join(", ");

/** Binds of a scope: ?2 is the allowed ids (NULL: all), ?3 the excluded ids. */
const scopeParams = (s: FileScope): [string | null, string] => [s.allowed ? jsonList(s.allowed) : null, jsonList(s.excluded ?? [])];
const IN_SCOPE = (fileId: string) => `(?2 IS NULL OR ${fileId} IN (SELECT value FROM json_each(?2))) AND ${fileId} NOT IN (SELECT value FROM json_each(?3))`;

/** Full-text search over chunks (FTS5, porter stemming), with the column weights of the schema. */
export class FtsQueries {
  constructor(private readonly db: Database) {}

  /** The best chunks for a compiled FTS5 expression, with their bm25, best first. */
  scored(match: string, scope: FileScope, limit: number): ScoredChunk[] {
    return this.db
      .query<ScoredChunk, [string, string | null, string, number]>(
        `SELECT c.id AS chunkId, c.file_id AS fileId, ${RANK} AS bm25
           FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
          WHERE chunks_fts MATCH ?1 AND ${IN_SCOPE("c.file_id")}
          ORDER BY bm25 LIMIT ?4`,
      )
      .all(match, ...scopeParams(scope), limit);
  }

  /** The best chunks for a compiled FTS5 expression, best first (ties by chunk id). */
  ranked(match: string, scope: FileScope, limit: number): RankedChunk[] {
    return this.db
      .query<RankedChunk, [string, string | null, string, number]>(
        `SELECT c.id AS chunkId, c.file_id AS fileId
           FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
          WHERE chunks_fts MATCH ?1 AND ${IN_SCOPE("c.file_id")}
          ORDER BY ${RANK}, c.id LIMIT ?4`,
      )
      .all(match, ...scopeParams(scope), limit);
  }

  /** Chunks whose text contains `text` as is: for scripts the tokenizer does not split into words (CJK). */
  containing(text: string, scope: FileScope, limit: number): RankedChunk[] {
    return this.db
      .query<RankedChunk, [string, string | null, string, number]>(
        `SELECT id AS chunkId, file_id AS fileId FROM chunks
          WHERE instr(text, ?1) > 0 AND ${IN_SCOPE("file_id")}
          LIMIT ?4`,
      )
      .all(text, ...scopeParams(scope), limit);
  }

  /** Ids of the notes with a chunk matching a compiled FTS5 expression. */
  filesMatching(match: string): number[] {
    return this.db
      .query<{ f: number }, [string]>("SELECT DISTINCT c.file_id AS f FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ?")
      .values(match)
      .map((r) => r[0] as number);
  }

  /** How many chunks contain a word (its document frequency). */
  chunksWithWord(word: string): number {
    return (
      this.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?").get(`"${word.replaceAll('"', '""')}"`)?.n ?? 0
    );
  }

  /** The columns each of these chunks matches `match` in, and a body snippet of `snippetTokens` tokens. */
  highlights(match: string, chunkIds: number[], snippetTokens: number): ChunkHighlight[] {
    return this.db
      .query<Record<string, string | number | null>, [string, string]>(
        `SELECT rowid AS id, ${HIGHLIGHTS}, snippet(chunks_fts, 4, '**', '**', '…', ${snippetTokens}) AS snip
           FROM chunks_fts WHERE chunks_fts MATCH ?1 AND rowid IN (SELECT value FROM json_each(?2))`,
      )
      .all(match, jsonList(chunkIds))
      .map((row) => ({
        chunkId: Number(row.id),
        columns: FTS_COLUMNS.filter((_, i) => String(row[`h${i}`] ?? "").includes(MARK_OPEN)),
        snippet: String(row.snip ?? ""),
      }));
  }
}
