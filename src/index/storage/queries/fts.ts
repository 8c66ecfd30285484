import { Database } from "bun:sqlite";
import { cjkGramQuery } from "../../../core/cjk.ts";
import { IndxError } from "../../../core/errors.ts";
import { type ExtraRows, type NameCheck, rankByBm25, rankByBm25f } from "../../lexical/bm25.ts";
import { Fts5FormatError, Fts5Postings, type Fts5Snapshot } from "../../lexical/fts5-postings.ts";
import { type Expr, markMatches, parseExpression, termsOf } from "../../lexical/marks.ts";
import { bodySpan, keyFinder, type MatchWindows, matchWindows, type Span } from "../../lexical/match-windows.ts";
import { FTS_COLUMNS, type NoteHighlight, type SearchDocument } from "../../lexical/search-document.ts";
import { Unicode61 } from "../../lexical/unicode61.ts";
import { FTS_TOKENIZE, FTS_WEIGHTS } from "../schema.ts";
import { type FileScope, jsonList } from "./lists.ts";

export interface ScoredNote {
  fileId: number;
  /** bm25 as FTS5 returns it: negative, lower is better. */
  bm25: number;
}

/** A date item of a query: its FTS5 literal and the days it spans (YYYY-MM-DD). */
export interface DatedItem {
  literal: string;
  from: string;
  to: string;
}

const MARK_OPEN = "\u0002";
const MARK_CLOSE = "\u0003";

const W = FTS_WEIGHTS;
const WEIGHTS = FTS_COLUMNS.map((c) => W[c]);
const RANK = `bm25(notes_fts, ${W.title}, ${W.aliases}, ${W.tags}, ${W.headings}, ${W.body})`;

/** Binds of a scope: ?2 is the allowed ids (NULL: all), ?3 the excluded ids. */
const scopeParams = (s: FileScope): [string | null, string] => [s.allowed ? jsonList(s.allowed) : null, jsonList(s.excluded ?? [])];
/**
 * `+rowid`, not `rowid`: offered to FTS5 as a rowid constraint, an IN list makes SQLite run the
 * whole MATCH (and bm25's document counts) once per listed id.
 */
const IN_SCOPE = "(?2 IS NULL OR +rowid IN (SELECT value FROM json_each(?2))) AND +rowid NOT IN (SELECT value FROM json_each(?3))";
/** The scope's condition, or none for a scope that leaves every note in: its two list scans cost a tenth of a walk. */
const inScope = (s: FileScope) => (s.allowed === null && !s.excluded?.length ? "" : ` AND ${IN_SCOPE}`);

/** Full-text search over notes (FTS5, porter stemming), with the column weights of the schema. */
export class FtsQueries {
  private readonly postings: Fts5Postings;

  /** A grant's store: its queries keep to `temp.visible` (src/index/storage/visibility.ts). */
  private readonly only: string;

  constructor(
    private readonly db: Database,
    /** The ids a grant's store may show, or null for the whole index. */
    private readonly visible: (() => ReadonlySet<number>) | null = null,
  ) {
    this.only = visible ? " AND +rowid IN (SELECT id FROM temp.visible)" : "";
    this.postings = new Fts5Postings(db, "notes_fts", FTS_COLUMNS.length);
  }

  /** Notes in the index, in constant time (one FTS5 record); null when the table is in a format not read here. */
  noteCount(): number | null {
    // The FTS5 record counts every note: a grant's view (docs/permissions.md) counts only what it
    // may show, so it answers null and the caller counts the narrowed notes instead.
    if (this.visible) return null;
    try {
      return this.postings.rowCount();
    } catch (err) {
      if (err instanceof Fts5FormatError) return null;
      throw err;
    }
  }

  /**
   * The best notes for a compiled expression by BM25F (src/index/lexical/bm25.ts), computed from the
   * index's posting lists, a note that `named` (the query's text as typed) names ranked first;
   * null when the expression has something that reads only in FTS5 (a prefix, a character
   * src/index/lexical/unicode61.ts does not follow) or the index is in a format
   * src/index/lexical/fts5-postings.ts does not read.
   */
  ranked(match: string, scope: FileScope, limit: number, opts: { named?: string; dates?: readonly DatedItem[] } = {}): ScoredNote[] | null {
    return this.fromPostings(match, scope, (snapshot, expr, keep) =>
      rankByBm25f(snapshot, expr, WEIGHTS, keep, limit, this.nameCheck(opts.named ?? ""), this.datedRows(opts.dates ?? [])),
    );
  }

  /**
   * The notes with a date property in each date item's days count as having the item's phrase,
   * once, in the tags column: a property is the note's metadata, as its tags are
   * (docs/search.md, "Dates").
   */
  private datedRows(dates: readonly DatedItem[]): ExtraRows[] {
    const chars = this.chars();
    return dates.flatMap((d) => {
      const phrase = termsOf(d.literal.slice(1, -1).replaceAll('""', '"'), chars)?.join(" ");
      if (!phrase) return [];
      const rowids = this.db
        .query<{ id: number }, [string, string]>("SELECT DISTINCT file_id AS id FROM properties WHERE day BETWEEN ? AND ?")
        .values(d.from, d.to)
        .map((r) => r[0] as number);
      return [{ phrase, rowids, column: FTS_COLUMNS.indexOf("tags") }];
    });
  }

  /** What FTS5's `ORDER BY bm25(...)` (`scored`) returns, computed from the posting lists: the check on reading them. */
  rankedAsFts5(match: string, scope: FileScope, limit: number): ScoredNote[] | null {
    return this.fromPostings(match, scope, (snapshot, expr, keep) => rankByBm25(snapshot, expr, WEIGHTS, keep, limit));
  }

  private fromPostings(
    match: string,
    scope: FileScope,
    rank: (snapshot: Fts5Snapshot, expr: Expr, keep: (id: number) => boolean) => ScoredNote[] | null,
  ): ScoredNote[] | null {
    const chars = this.chars();
    chars.learn([match]);
    const expr = parseExpression(match, chars);
    if (expr === null) return null;
    const { allowed } = scope;
    const excluded = new Set(scope.excluded ?? []);
    const visible = this.visible?.() ?? null;
    try {
      return rank(this.postings.current(), expr, (id) => (allowed === null || allowed.has(id)) && !excluded.has(id) && (visible === null || visible.has(id)));
    } catch (err) {
      if (err instanceof Fts5FormatError) return null;
      throw err;
    }
  }

  /**
   * Which notes the query's text names: their title, or one of their aliases, makes the same terms
   * in the same order, as the tokenizer makes them (case, diacritics, punctuation and the
   * inflections Porter's stemmer folds aside: `bases-syntax` names "Bases syntax", `meetings`
   * names "Meeting"). Null when the text has no terms or a character
   * src/index/lexical/unicode61.ts does not follow.
   */
  private nameCheck(named: string): NameCheck | null {
    const chars = this.chars();
    chars.learn([named]);
    const key = termsOf(named, chars);
    if (!key?.length) return null;
    const wanted = key.join(" ");
    const same = (text: string) => {
      chars.learn([text]);
      return termsOf(text, chars)?.join(" ") === wanted;
    };
    return {
      terms: key,
      titleColumn: FTS_COLUMNS.indexOf("title"),
      aliasColumn: FTS_COLUMNS.indexOf("aliases"),
      verify: (ids) => {
        const out = new Set<number>();
        for (const { id, title, aliases } of this.db
          .query<{ id: number; title: string; aliases: string }, [string]>(
            "SELECT file_id AS id, title, aliases FROM notes WHERE file_id IN (SELECT value FROM json_each(?))",
          )
          .all(jsonList(ids)))
          if (same(title) || (JSON.parse(aliases) as unknown[]).some((a) => typeof a === "string" && same(a))) out.add(id);
        return out;
      },
    };
  }

  /** How many notes match, counting no further than `cap` + 1: a walk of the match lists, no ranking. */
  countUpTo(match: string, cap: number): number {
    return (
      this.db
        .query<{ n: number }, [string, number]>(`SELECT count(*) AS n FROM (SELECT 1 FROM notes_fts WHERE notes_fts MATCH ?1${this.only} LIMIT ?2)`)
        .get(match, cap + 1)?.n ?? 0
    );
  }

  /** The best notes for a compiled FTS5 expression, with their bm25, best first (ties by id). */
  scored(match: string, scope: FileScope, limit: number): ScoredNote[] {
    return this.db
      .query<ScoredNote, [string, string | null, string, number]>(
        `SELECT rowid AS fileId, ${RANK} AS bm25 FROM notes_fts WHERE notes_fts MATCH ?1${inScope(scope)}${this.only} ORDER BY bm25, rowid LIMIT ?4`,
      )
      .all(match, ...scopeParams(scope), limit);
  }

  /** The best of some candidate notes for an expression: bm25 is computed for the candidates only. */
  scoredAmong(match: string, candidates: number[], limit: number): ScoredNote[] {
    return this.db
      .query<ScoredNote, [string, string, number]>(
        `SELECT rowid AS fileId, ${RANK} AS bm25 FROM notes_fts WHERE notes_fts MATCH ?1 AND +rowid IN (SELECT value FROM json_each(?2))${this.only}
          ORDER BY bm25, rowid LIMIT ?3`,
      )
      .all(match, jsonList(candidates), limit);
  }

  /** The first notes matching an expression in index order: no ranking work. */
  firstMatching(match: string, scope: FileScope, limit: number): number[] {
    return this.db
      .query<{ id: number }, [string, string | null, string, number]>(
        `SELECT rowid AS id FROM notes_fts WHERE notes_fts MATCH ?1${inScope(scope)}${this.only} LIMIT ?4`,
      )
      .values(match, ...scopeParams(scope), limit)
      .map((r) => r[0] as number);
  }

  /** Notes with a CJK run inside their text's runs (the pairs index of src/core/cjk.ts). */
  containing(run: string, scope: FileScope, limit: number): number[] {
    return this.db
      .query<{ id: number }, [string, string | null, string, number]>(
        `SELECT rowid AS id FROM cjk_fts WHERE cjk_fts MATCH ?1${inScope(scope)}${this.only} LIMIT ?4`,
      )
      .values(cjkGramQuery(run), ...scopeParams(scope), limit)
      .map((r) => r[0] as number);
  }

  /** Ids of the notes matching a compiled FTS5 expression. */
  filesMatching(match: string): number[] {
    return this.db
      .query<{ id: number }, [string]>(`SELECT rowid AS id FROM notes_fts WHERE notes_fts MATCH ?1${this.only}`)
      .values(match)
      .map((r) => r[0] as number);
  }

  /** How many notes contain a word (its document frequency), counted no further than `cap`. */
  notesWithWord(word: string, cap: number): number {
    return Math.min(cap, this.countUpTo(`"${word.replaceAll('"', '""')}"`, cap));
  }

  /**
   * The columns each of these notes matches `match` in, and where its body matched. notes_fts
   * keeps no text, so the notes' documents go through a scratch FTS5 table with the same
   * tokenizer: highlight() there marks exactly what the index matched.
   */
  highlights(match: string, docs: (SearchDocument & { fileId: number })[]): NoteHighlight[] {
    if (!docs.length) return [];
    const quick = markMatches(match, docs, this.chars());
    if (quick !== null && !quick.rest.length) return quick.marked;
    const scratch = this.scratchTable();
    return quick === null ? scratch.mark(match, docs) : [...quick.marked, ...scratch.mark(match, quick.rest)];
  }

  close(): void {
    this.scratch?.close();
  }

  private scratch: ScratchHighlighter | null = null;
  private unicode61: Unicode61 | null = null;

  private scratchTable(): ScratchHighlighter {
    this.scratch ??= new ScratchHighlighter();
    return this.scratch;
  }

  /** unicode61 as JavaScript follows it, learning characters from the scratch table. */
  private chars(): Unicode61 {
    this.unicode61 ??= new Unicode61((probes) => this.scratchTable().terms(probes));
    return this.unicode61;
  }
}

const HIGHLIGHTS = FTS_COLUMNS.map((_, i) => `highlight(docs, ${i}, '${MARK_OPEN}', '${MARK_CLOSE}') AS h${i}`).join(", ");

/** An FTS5 string literal: what the query compiler emits for every item (src/search/query.ts). */
const LITERAL = /"((?:[^"]|"")*)"/g;
/** What an expression of literals may hold besides them: operators, groups, prefix stars. */
const OPERATORS_ONLY = /^(?:[\s()*]|\bAND\b|\bOR\b|\bNOT\b)*$/;

/**
 * In-memory FTS5 tables that hold the few documents being shown, only while they are marked,
 * and the query's literals, to read the terms FTS5 makes of them (fts5vocab).
 */
class ScratchHighlighter {
  private readonly db = new Database(":memory:");
  private readonly insert;
  private readonly select;
  private readonly insertQuery;
  private readonly queryTerms;
  private readonly instances;
  private readonly insertText;

  constructor() {
    // No column sizes: nothing here ranks, and writing them was half of each insert.
    this.db.run(`CREATE VIRTUAL TABLE docs USING fts5(${FTS_COLUMNS.join(", ")}, tokenize = '${FTS_TOKENIZE}', columnsize = 0)`);
    this.db.run(`CREATE VIRTUAL TABLE query USING fts5(literals, tokenize = '${FTS_TOKENIZE}', columnsize = 0)`);
    this.db.run("CREATE VIRTUAL TABLE query_terms USING fts5vocab(query, 'row')");
    this.db.run("CREATE VIRTUAL TABLE query_instances USING fts5vocab(query, 'instance')");
    this.insert = this.db.prepare<void, [number, string, string, string, string, string]>(
      `INSERT INTO docs(rowid, ${FTS_COLUMNS.join(", ")}) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.select = this.db.prepare<Record<string, string | number | null>, [string]>(`SELECT rowid AS id, ${HIGHLIGHTS} FROM docs WHERE docs MATCH ?`);
    this.insertQuery = this.db.prepare<void, [string]>("INSERT INTO query(literals) VALUES (?)");
    this.insertText = this.db.prepare<void, [number, string]>("INSERT INTO query(rowid, literals) VALUES (?, ?)");
    this.queryTerms = this.db.prepare<{ term: string }, []>("SELECT term FROM query_terms");
    this.instances = this.db.prepare<{ term: string; doc: number }, []>("SELECT term, doc FROM query_instances ORDER BY doc, col, offset");
  }

  /** The terms FTS5 makes of each text, in order (src/index/lexical/unicode61.ts asks it about characters). */
  terms(texts: string[]): string[][] {
    this.db.run("BEGIN");
    try {
      for (const [i, text] of texts.entries()) this.insertText.run(i + 1, text);
      const out: string[][] = texts.map(() => []);
      for (const { term, doc } of this.instances.all()) out[doc - 1]?.push(term);
      return out;
    } finally {
      this.db.run("ROLLBACK");
    }
  }

  /**
   * The documents live for one transaction: rolling it back empties the tables at no cost. Each
   * body goes in as its match windows (src/index/lexical/match-windows.ts), marks come back as body offsets.
   */
  mark(match: string, docs: (SearchDocument & { fileId: number })[]): NoteHighlight[] {
    this.db.run("BEGIN");
    try {
      const finder = this.finder(match);
      const windows = new Map<number, MatchWindows>();
      for (const d of docs) {
        const w = matchWindows(d.body, finder);
        windows.set(d.fileId, w);
        this.insert.run(d.fileId, d.title, d.aliases, d.tags, d.headings, w.text);
      }
      return this.select.all(match).map((row) => {
        const fileId = Number(row.id);
        const w = windows.get(fileId);
        if (!w) throw new IndxError("internal", "FTS5 marked a document that was not inserted in this transaction");
        return {
          fileId,
          columns: FTS_COLUMNS.filter((_, i) => String(row[`h${i}`] ?? "").includes(MARK_OPEN)),
          spans: markedSpans(String(row.h4 ?? "")).map((s) => bodySpan(w, s)),
        };
      });
    } finally {
      this.db.run("ROLLBACK");
    }
  }

  /** What a word must hold to match the expression (keyFinder), or null when it holds anything but literals. */
  private finder(match: string): RegExp | null {
    const literals = [...match.matchAll(LITERAL)].map((m) => (m[1] ?? "").replaceAll('""', '"'));
    if (!OPERATORS_ONLY.test(match.replace(LITERAL, " "))) return null;
    this.insertQuery.run(literals.join("\n"));
    return keyFinder(this.queryTerms.values().map((r) => String(r[0])));
  }

  close(): void {
    this.db.close();
  }
}

/** Where the marked runs of a highlight() text lie in the text without its marks. */
function markedSpans(marked: string): Span[] {
  const spans: Span[] = [];
  let removed = 0;
  let from = 0;
  while (true) {
    const open = marked.indexOf(MARK_OPEN, from);
    if (open < 0) break;
    const close = marked.indexOf(MARK_CLOSE, open);
    if (close < 0) break;
    spans.push({ start: open - removed, end: close - removed - 1 });
    removed += 2;
    from = close + 1;
  }
  return spans;
}
