import { Database } from "bun:sqlite";
import { cjkGramQuery } from "../../core/cjk.ts";
import { FTS_COLUMNS, FTS_TOKENIZE, FTS_WEIGHTS } from "../schema.ts";
import type { SearchDocument } from "../search-document.ts";
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
  /** The search document's body with each match between MARK_OPEN and MARK_CLOSE. */
  body: string;
}

export const MARK_OPEN = "\u0002";
export const MARK_CLOSE = "\u0003";

const W = FTS_WEIGHTS;
const RANK = `bm25(notes_fts, ${W.title}, ${W.aliases}, ${W.tags}, ${W.headings}, ${W.body})`;

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
   * The columns each of these notes matches `match` in, and its body with the matches marked.
   * notes_fts keeps no text, so the notes' documents go through a scratch FTS5 table with the
   * same tokenizer: highlight() there marks exactly what the index matched.
   */
  highlights(match: string, docs: (SearchDocument & { fileId: number })[]): NoteHighlight[] {
    if (!docs.length) return [];
    const scratch = (this.scratch ??= new ScratchHighlighter());
    return scratch.mark(match, docs);
  }

  close(): void {
    this.scratch?.close();
  }

  private scratch: ScratchHighlighter | null = null;
}

const HIGHLIGHTS = FTS_COLUMNS.map((_, i) => `highlight(docs, ${i}, '${MARK_OPEN}', '${MARK_CLOSE}') AS h${i}`).join(", ");

/** An in-memory FTS5 table that holds the few documents being shown, only while they are marked. */
class ScratchHighlighter {
  private readonly db = new Database(":memory:");
  private readonly insert;
  private readonly select;

  constructor() {
    this.db.run(`CREATE VIRTUAL TABLE docs USING fts5(${FTS_COLUMNS.join(", ")}, tokenize = '${FTS_TOKENIZE}')`);
    this.insert = this.db.prepare<void, [number, string, string, string, string, string]>(
      `INSERT INTO docs(rowid, ${FTS_COLUMNS.join(", ")}) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.select = this.db.prepare<Record<string, string | number | null>, [string]>(`SELECT rowid AS id, ${HIGHLIGHTS} FROM docs WHERE docs MATCH ?`);
  }

  /** The documents live for one transaction: rolling it back empties the table at no cost. */
  mark(match: string, docs: (SearchDocument & { fileId: number })[]): NoteHighlight[] {
    this.db.run("BEGIN");
    try {
      for (const d of docs) this.insert.run(d.fileId, d.title, d.aliases, d.tags, d.headings, d.body);
      return this.select.all(match).map((row) => ({
        fileId: Number(row.id),
        columns: FTS_COLUMNS.filter((_, i) => String(row[`h${i}`] ?? "").includes(MARK_OPEN)),
        body: String(row.h4 ?? ""),
      }));
    } finally {
      this.db.run("ROLLBACK");
    }
  }

  close(): void {
    this.db.close();
  }
}
