import type { Database } from "bun:sqlite";
import { cjkGramQuery } from "../../core/cjk.ts";
import { FTS_COLUMNS, FTS_WEIGHTS } from "../schema.ts";
import { type FileScope, jsonList } from "./lists.ts";

export type FtsColumn = (typeof FTS_COLUMNS)[number];

export interface ScoredNote {
  fileId: number;
  /** bm25 as FTS5 returns it: negative, lower is better. */
  bm25: number;
}

/** Where a note matched an FTS5 expression: its columns, and its body with every match marked. */
export interface NoteHighlight {
  fileId: number;
  columns: FtsColumn[];
  /** note_search's body with each match between MARK_OPEN and MARK_CLOSE. */
  body: string;
}

export const MARK_OPEN = "\u0002";
export const MARK_CLOSE = "\u0003";

const W = FTS_WEIGHTS;
const RANK = `bm25(notes_fts, ${W.title}, ${W.aliases}, ${W.tags}, ${W.headings}, ${W.body})`;
const HIGHLIGHTS = FTS_COLUMNS.map((_, i) => `highlight(notes_fts, ${i}, '${MARK_OPEN}', '${MARK_CLOSE}') AS h${i}`).join(", ");

/** Binds of a scope: ?2 is the allowed ids (NULL: all), ?3 the excluded ids. */
const scopeParams = (s: FileScope): [string | null, string] => [s.allowed ? jsonList(s.allowed) : null, jsonList(s.excluded ?? [])];
/**
 * `+rowid`, not `rowid`: offered to FTS5 as a rowid constraint, an IN list makes SQLite run the
 * whole MATCH (and bm25's document counts) once per listed id.
 */
const IN_SCOPE = "(?2 IS NULL OR +rowid IN (SELECT value FROM json_each(?2))) AND +rowid NOT IN (SELECT value FROM json_each(?3))";

/** Full-text search over notes (FTS5, porter stemming), with the column weights of the schema. */
export class FtsQueries {
  constructor(private readonly db: Database) {}

  /** How many notes match, counting no further than `cap` + 1: a walk of the match lists, no ranking. */
  countUpTo(match: string, cap: number): number {
    return (
      this.db
        .query<{ n: number }, [string, number]>("SELECT count(*) AS n FROM (SELECT 1 FROM notes_fts WHERE notes_fts MATCH ?1 LIMIT ?2)")
        .get(match, cap + 1)?.n ?? 0
    );
  }

  /** The best notes for a compiled FTS5 expression, with their bm25, best first (ties by id). */
  scored(match: string, scope: FileScope, limit: number): ScoredNote[] {
    return this.db
      .query<ScoredNote, [string, string | null, string, number]>(
        `SELECT rowid AS fileId, ${RANK} AS bm25 FROM notes_fts WHERE notes_fts MATCH ?1 AND ${IN_SCOPE} ORDER BY bm25, rowid LIMIT ?4`,
      )
      .all(match, ...scopeParams(scope), limit);
  }

  /** The best of some candidate notes for an expression: bm25 is computed for the candidates only. */
  scoredAmong(match: string, candidates: number[], limit: number): ScoredNote[] {
    return this.db
      .query<ScoredNote, [string, string, number]>(
        `SELECT rowid AS fileId, ${RANK} AS bm25 FROM notes_fts WHERE notes_fts MATCH ?1 AND +rowid IN (SELECT value FROM json_each(?2))
          ORDER BY bm25, rowid LIMIT ?3`,
      )
      .all(match, jsonList(candidates), limit);
  }

  /** The first notes matching an expression in index order: no ranking work. */
  firstMatching(match: string, scope: FileScope, limit: number): number[] {
    return this.db
      .query<{ id: number }, [string, string | null, string, number]>(`SELECT rowid AS id FROM notes_fts WHERE notes_fts MATCH ?1 AND ${IN_SCOPE} LIMIT ?4`)
      .values(match, ...scopeParams(scope), limit)
      .map((r) => r[0] as number);
  }

  /** Notes with a CJK run inside their text's runs (the pairs index of src/core/cjk.ts). */
  containing(run: string, scope: FileScope, limit: number): number[] {
    return this.db
      .query<{ id: number }, [string, string | null, string, number]>(`SELECT rowid AS id FROM cjk_fts WHERE cjk_fts MATCH ?1 AND ${IN_SCOPE} LIMIT ?4`)
      .values(cjkGramQuery(run), ...scopeParams(scope), limit)
      .map((r) => r[0] as number);
  }

  /** Ids of the notes matching a compiled FTS5 expression. */
  filesMatching(match: string): number[] {
    return this.db
      .query<{ id: number }, [string]>("SELECT rowid AS id FROM notes_fts WHERE notes_fts MATCH ?")
      .values(match)
      .map((r) => r[0] as number);
  }

  /** How many notes contain a word (its document frequency), counted no further than `cap`. */
  notesWithWord(word: string, cap: number): number {
    return Math.min(cap, this.countUpTo(`"${word.replaceAll('"', '""')}"`, cap));
  }

  /**
   * The columns each of these notes matches `match` in, and its body with the matches marked. A
   * plain `rowid IN`: FTS5 looks each note up, and highlight() needs no document counts.
   */
  highlights(match: string, fileIds: number[]): NoteHighlight[] {
    return this.db
      .query<Record<string, string | number | null>, [string, string]>(
        `SELECT rowid AS id, ${HIGHLIGHTS} FROM notes_fts WHERE notes_fts MATCH ?1 AND rowid IN (SELECT value FROM json_each(?2))`,
      )
      .all(match, jsonList(fileIds))
      .map((row) => ({
        fileId: Number(row.id),
        columns: FTS_COLUMNS.filter((_, i) => String(row[`h${i}`] ?? "").includes(MARK_OPEN)),
        body: String(row.h4 ?? ""),
      }));
  }
}
