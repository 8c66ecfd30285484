import type { Fts5Snapshot } from "./fts5-postings.ts";
import { collectPhrases, type Expr, type Phrase } from "./marks.ts";

/**
 * Ranking over posting lists read from the index (src/index/lexical/fts5-postings.ts): BM25F for search
 * (rankByBm25f), and FTS5's own bm25() (rankByBm25), the same doubles, that the reading of the
 * lists is checked against.
 */

const K1 = 1.2;
const B = 0.75;
/** Phrases are tracked as bits of a row's mask. */
const MAX_PHRASES = 31;
/** Notes whose name a walk checks against the query at most (those with a query word in their aliases are not bounded by length). */
const MAX_NAME_CANDIDATES = 1000;

export interface Ranked {
  fileId: number;
  bm25: number;
}

/**
 * How a walk tells the notes the query names: a note whose title has as many tokens as the query
 * and each phrase of the expression made of the query's own words, or whose aliases have each of
 * them, is a candidate; `verify` says
 * which candidates' title or an alias make the same terms as the query (src/index/storage/queries/fts.ts).
 */
export interface NameCheck {
  /** The terms the tokenizer makes of the query's text as typed (stopwords kept), in order. */
  terms: string[];
  titleColumn: number;
  aliasColumn: number;
  verify(candidates: number[]): Set<number>;
}

/**
 * Rows that count as having a phrase without the index holding it: the notes whose date property
 * falls in a date item of the query (src/search/query.ts), counted once in `column`.
 */
export interface ExtraRows {
  /** The phrase's terms joined by a space. */
  phrase: string;
  rowids: number[];
  column: number;
}

/**
 * A phrase's rows in ascending order, with its frequency in each as the ranking reduces a row's
 * counts by column to one number (`Frequency`), and the columns it has there (bit c: column c).
 * One number a row, not one a column: the lists of a very common word are long.
 */
interface PhraseRows {
  rowids: number[];
  freqs: number[];
  columns: number[];
}

/**
 * A phrase's frequency in a row from its counts by column. It must be a sum over the columns
 * (extra rows add to it one column at a time).
 */
type Frequency = (rowid: number, counts: ArrayLike<number>) => number;

/** What ranking needs of an expression: its phrases' rows, their IDFs and the test of a row's phrases. */
interface Prepared {
  phrases: Phrase[];
  lists: PhraseRows[];
  idf: number[];
  matches: (mask: number) => boolean;
}

/** null when the expression has a prefix phrase (FTS5 expands those over its terms) or more phrases than a mask holds. */
function prepare(snapshot: Fts5Snapshot, expr: Expr, frequency: Frequency, extra: readonly ExtraRows[] = []): Prepared | null {
  const phrases: Phrase[] = [];
  collectPhrases(expr, phrases);
  if (phrases.length > MAX_PHRASES || phrases.some((p) => p.prefix || !p.terms.length)) return null;
  const columns = snapshot.totals.length;
  if (snapshot.partial) snapshot.need(rowsToScore(snapshot, phrases, extra));
  // A phrase repeated in the expression (the compiler repeats the first required item) is read once.
  const read = new Map<string, PhraseRows>();
  const lists = phrases.map((p) => {
    const key = p.terms.join(" ");
    let rows = read.get(key);
    if (!rows) {
      rows = p.terms.length === 1 ? termRows(snapshot, p.terms[0]!, frequency) : phraseRows(snapshot, p.terms, columns, frequency);
      for (const e of extra) if (e.phrase === key) rows = withRows(rows, e, columns, frequency);
      read.set(key, rows);
    }
    return rows;
  });
  const n = snapshot.rows;
  const idf = lists.map(({ rowids }) => {
    const v = Math.log((n - rowids.length + 0.5) / (rowids.length + 0.5));
    return v <= 0.0 ? 1e-6 : v;
  });
  return { phrases, lists, idf, matches: maskTest(expr, phrases) };
}

/**
 * Walks every phrase's rows together, in rowid order, as FTS5 walks its doclists; calls `row` for
 * each row the expression matches and `keep` accepts, with the phrases it has (bit i: phrase i)
 * and where it stands in each phrase's list (`at[i]`, for the phrases it has).
 */
function walk(p: Prepared, keep: (rowid: number) => boolean, row: (rowid: number, mask: number, at: Int32Array) => void): void {
  const { lists, matches } = p;
  const next = new Int32Array(lists.length);
  const at = new Int32Array(lists.length);
  while (true) {
    let rowid = Number.POSITIVE_INFINITY;
    for (let i = 0; i < lists.length; i++) {
      const r = lists[i]!.rowids[next[i]!];
      if (r !== undefined && r < rowid) rowid = r;
    }
    if (rowid === Number.POSITIVE_INFINITY) break;
    let mask = 0;
    for (let i = 0; i < lists.length; i++)
      if (lists[i]!.rowids[next[i]!] === rowid) {
        mask |= 1 << i;
        at[i] = next[i]!++;
      }
    if (matches(mask) && keep(rowid)) row(rowid, mask, at);
  }
}

/**
 * FTS5's bm25() computed as fts5_aux.c computes it, operation for operation, so scores are the
 * same doubles and the order the same as `ORDER BY bm25(...), rowid`: k1 = 1.2, b = 0.75; each
 * phrase of the expression (in its order, a repeated one counted again) has IDF
 * log((N - n + 0.5) / (n + 0.5)), floored at 1e-6, where n is the rows that have the phrase; its
 * frequency in a row is the sum of the column weights of its instances there; a row's length is
 * its tokens in every column. Search ranks with rankByBm25f; this is what the posting lists are
 * checked against (test/unit/index/bm25.test.ts).
 */
export function rankByBm25(snapshot: Fts5Snapshot, expr: Expr, weights: readonly number[], keep: (rowid: number) => boolean, limit: number): Ranked[] | null {
  const p = prepare(snapshot, expr, (_, counts) => {
    let f = 0;
    for (let c = 0; c < weights.length; c++) f += counts[c]! * weights[c]!;
    return f;
  });
  if (p === null) return null;
  const { lists, idf } = p;
  const avgdl = snapshot.totals.reduce((a, b) => a + b, 0) / snapshot.rows;
  const best: Ranked[] = [];
  walk(p, keep, (rowid, mask, at) => {
    const d = snapshot.length(rowid);
    let score = 0.0;
    // A phrase the row lacks adds 0.0 in FTS5: skipping it leaves the same double.
    for (let i = 0; i < lists.length; i++) {
      if (!(mask & (1 << i))) continue;
      const f = lists[i]!.freqs[at[i]!]!;
      score += idf[i]! * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + (B * d) / avgdl)));
    }
    insertBounded(best, rowid, -1.0 * score, limit);
  });
  return best;
}

/**
 * BM25F (Robertson, Zaragoza and Taylor, "Simple BM25 extension to multiple weighted fields",
 * 2004): each phrase's frequency in a note is the sum over its fields of the field's weight times
 * its count there over the field's own length normalisation, 1 − b + b · length / mean length of
 * that field; the sum then saturates once, tf / (k1 + tf), times the phrase's IDF (FTS5's, as
 * above). A title match so counts the same in a long note as in a short one, where one length
 * for the whole note divided it by the body's length (docs/decisions.md, "Field-aware ranking").
 *
 * A note the query names (`named`: its title or an alias makes the same terms as the query's
 * text) scores the most any note can score on top of its own: Σ IDF · (k1 + 1), so it ranks above
 * every note that only has the words, and the named notes among themselves by their own score.
 */
export function rankByBm25f(
  snapshot: Fts5Snapshot,
  expr: Expr,
  weights: readonly number[],
  keep: (rowid: number) => boolean,
  limit: number,
  named: NameCheck | null,
  extra: readonly ExtraRows[] = [],
): Ranked[] | null {
  // A field's normalisation is 1 − b + b · length / mean: b / mean once per field, not per row.
  const perToken = snapshot.totals.map((t) => (t > 0 ? (B * snapshot.rows) / t : 0));
  const p = prepare(
    snapshot,
    expr,
    (rowid, counts) => {
      let tf = 0;
      for (let c = 0; c < weights.length; c++) {
        const n = counts[c]!;
        if (n) tf += (weights[c]! * n) / (perToken[c]! ? 1 - B + perToken[c]! * snapshot.columnLength(rowid, c) : 1);
      }
      return tf;
    },
    extra,
  );
  if (p === null) return null;
  const { lists, idf } = p;
  const best: Ranked[] = [];
  const candidates = new Map<number, number>();
  // The phrases made of the query's own words (not its other spellings): a note the query names has each in its title or aliases.
  const words = new Set(named?.terms);
  let wanted = 0;
  for (const [i, phrase] of p.phrases.entries()) if (phrase.terms.every((t) => words.has(t))) wanted |= 1 << i;
  const titleBit = named ? 1 << named.titleColumn : 0;
  const aliasBit = named ? 1 << named.aliasColumn : 0;
  walk(p, keep, (rowid, mask, at) => {
    let score = 0.0;
    let inTitle = 0;
    let inAliases = 0;
    for (let i = 0; i < lists.length; i++) {
      if (!(mask & (1 << i))) continue;
      const list = lists[i]!;
      const tf = list.freqs[at[i]!]!;
      score += idf[i]! * ((tf * (K1 + 1.0)) / (tf + K1));
      const columns = list.columns[at[i]!]!;
      if (columns & titleBit) inTitle |= 1 << i;
      if (columns & aliasBit) inAliases |= 1 << i;
    }
    if (
      wanted &&
      candidates.size < MAX_NAME_CANDIDATES &&
      ((inAliases & wanted) === wanted || ((inTitle & wanted) === wanted && snapshot.columnLength(rowid, named!.titleColumn) === named!.terms.length))
    )
      candidates.set(rowid, score);
    insertBounded(best, rowid, -1.0 * score, limit);
  });
  if (!named || !candidates.size) return best;
  const ceiling = idf.reduce((sum, v) => sum + v * (K1 + 1.0), 0);
  for (const id of named.verify([...candidates.keys()])) {
    const at = best.findIndex((r) => r.fileId === id);
    if (at >= 0) best.splice(at, 1);
    insertBounded(best, id, -1.0 * (candidates.get(id)! + ceiling), limit);
  }
  return best;
}

/**
 * The rows whose lengths scoring may read: those with the first term of a phrase (a superset of
 * the phrase's rows) and the extra rows. Named before the lists are read, as the lists are scored
 * while they are read (src/index/lexical/fts5-postings.ts, RowLengths).
 */
function rowsToScore(snapshot: Fts5Snapshot, phrases: Phrase[], extra: readonly ExtraRows[]): number[] {
  const rowids: number[] = [];
  for (const term of new Set(phrases.map((p) => p.terms[0]!))) snapshot.visit(term, false, (rowid) => rowids.push(rowid));
  for (const e of extra) rowids.push(...e.rowids);
  return rowids;
}

/** The columns with a count (bit c: column c). */
function columnBits(counts: ArrayLike<number>): number {
  let bits = 0;
  for (let c = 0; c < counts.length; c++) if (counts[c]) bits |= 1 << c;
  return bits;
}

/** A single term's rows. */
function termRows(snapshot: Fts5Snapshot, term: string, frequency: Frequency): PhraseRows {
  const out: PhraseRows = { rowids: [], freqs: [], columns: [] };
  let sorted = true;
  snapshot.visit(term, false, (rowid, counts) => {
    if (out.rowids.length && rowid < out.rowids[out.rowids.length - 1]!) sorted = false;
    out.rowids.push(rowid);
    out.freqs.push(frequency(rowid, counts));
    out.columns.push(columnBits(counts));
  });
  return sorted ? out : sortedRows(out);
}

/** A phrase's instances: positions where its terms follow each other in one column, counted by column. */
function phraseRows(snapshot: Fts5Snapshot, terms: string[], columns: number, frequency: Frequency): PhraseRows {
  const rest = terms.slice(1).map((term) => {
    const at = new Map<number, Set<number>>();
    snapshot.visit(term, true, (rowid, _, positions) => at.set(rowid, new Set(positions)));
    return at;
  });
  const out: PhraseRows = { rowids: [], freqs: [], columns: [] };
  const found = new Array<number>(columns);
  snapshot.visit(terms[0]!, true, (rowid, _, positions) => {
    const following = rest.map((at) => at.get(rowid));
    if (following.some((s) => s === undefined)) return;
    found.fill(0);
    let any = false;
    for (const start of positions!)
      if (following.every((s, k) => s!.has(start + k + 1))) {
        found[Math.floor(start / 2 ** 32)]!++;
        any = true;
      }
    if (any) {
      out.rowids.push(rowid);
      out.freqs.push(frequency(rowid, found));
      out.columns.push(columnBits(found));
    }
  });
  return sortedRows(out);
}

/** A phrase's rows with the extra ones counted once more in their column, in rowid order. */
function withRows(rows: PhraseRows, extra: ExtraRows, columns: number, frequency: Frequency): PhraseRows {
  const one = new Array<number>(columns).fill(0);
  one[extra.column] = 1;
  const at = new Map(rows.rowids.map((id, i) => [id, i]));
  const out: PhraseRows = { rowids: [...rows.rowids], freqs: [...rows.freqs], columns: [...rows.columns] };
  for (const id of extra.rowids) {
    // The frequency is a sum over columns: one more instance in a column adds its share.
    const add = frequency(id, one);
    const i = at.get(id);
    if (i !== undefined) {
      out.freqs[i]! += add;
      out.columns[i]! |= 1 << extra.column;
    } else {
      at.set(id, out.rowids.length);
      out.rowids.push(id);
      out.freqs.push(add);
      out.columns.push(1 << extra.column);
    }
  }
  return sortedRows(out);
}

/** Rows from several segments, put in rowid order. */
function sortedRows(rows: PhraseRows): PhraseRows {
  const order = rows.rowids.map((_, i) => i).sort((a, b) => rows.rowids[a]! - rows.rowids[b]!);
  return { rowids: order.map((i) => rows.rowids[i]!), freqs: order.map((i) => rows.freqs[i]!), columns: order.map((i) => rows.columns[i]!) };
}

/** The expression as a test of which phrases a row has (bit i: phrase i, in `phrases` order). */
function maskTest(e: Expr, phrases: Phrase[]): (mask: number) => boolean {
  switch (e.kind) {
    case "phrase": {
      const bit = 1 << phrases.indexOf(e.phrase);
      return (mask) => (mask & bit) !== 0;
    }
    case "and": {
      const parts = e.of.map((c) => maskTest(c, phrases));
      return (mask) => parts.every((t) => t(mask));
    }
    case "or": {
      const parts = e.of.map((c) => maskTest(c, phrases));
      return (mask) => parts.some((t) => t(mask));
    }
    case "not": {
      const [yes, no] = e.of.map((c) => maskTest(c, phrases)) as [(m: number) => boolean, (m: number) => boolean];
      return (mask) => yes(mask) && !no(mask);
    }
  }
}

/** Keeps `best` the `limit` lowest scores in order (ties by id), as `ORDER BY bm25, rowid LIMIT`. */
function insertBounded(best: Ranked[], fileId: number, bm25: number, limit: number): void {
  const worst = best[best.length - 1];
  if (best.length >= limit && worst && (bm25 > worst.bm25 || (bm25 === worst.bm25 && fileId > worst.fileId))) return;
  let lo = 0;
  let hi = best.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const m = best[mid]!;
    if (m.bm25 < bm25 || (m.bm25 === bm25 && m.fileId < fileId)) lo = mid + 1;
    else hi = mid;
  }
  best.splice(lo, 0, { fileId, bm25 });
  if (best.length > limit) best.pop();
}
