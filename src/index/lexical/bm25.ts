import type { Fts5Snapshot } from "./fts5-postings.ts";
import { collectPhrases, type Expr, type Phrase } from "./marks.ts";

/**
 * FTS5's bm25() over posting lists read from the index (src/index/lexical/fts5-postings.ts), computed as
 * fts5_aux.c computes it, operation for operation, so scores are the same doubles and the order
 * the same as `ORDER BY bm25(...), rowid`: k1 = 1.2, b = 0.75; each phrase of the expression (in
 * its order, a repeated one counted again) has IDF log((N - n + 0.5) / (n + 0.5)), floored at
 * 1e-6, where n is the rows that have the phrase; its frequency in a row is the sum of the
 * column weights of its instances there; a row's length is its tokens in every column.
 */

const K1 = 1.2;
const B = 0.75;
/** Phrases are tracked as bits of a row's mask. */
const MAX_PHRASES = 31;

export interface Ranked {
  fileId: number;
  bm25: number;
}

/** A phrase's rows in ascending order, with its weighted frequency in each. */
interface PhraseRows {
  rowids: number[];
  freqs: number[];
}

/**
 * The best `limit` rows for an expression, best first (ties by rowid), among rows that `keep`
 * accepts; null when the expression has a prefix phrase (FTS5 expands those over its terms) or
 * more phrases than a mask holds.
 */
export function rankByBm25(snapshot: Fts5Snapshot, expr: Expr, weights: readonly number[], keep: (rowid: number) => boolean, limit: number): Ranked[] | null {
  const phrases: Phrase[] = [];
  collectPhrases(expr, phrases);
  if (phrases.length > MAX_PHRASES || phrases.some((p) => p.prefix || !p.terms.length)) return null;
  // A phrase repeated in the expression (the compiler repeats the first required item) is read once.
  const read = new Map<string, PhraseRows>();
  const lists = phrases.map((p) => {
    const key = p.terms.join(" ");
    let rows = read.get(key);
    if (!rows) read.set(key, (rows = p.terms.length === 1 ? termRows(snapshot, p.terms[0]!, weights) : phraseRows(snapshot, p.terms, weights)));
    return rows;
  });

  const n = snapshot.rows;
  const idf = lists.map(({ rowids }) => {
    const v = Math.log((n - rowids.length + 0.5) / (rowids.length + 0.5));
    return v <= 0.0 ? 1e-6 : v;
  });
  const avgdl = snapshot.totals.reduce((a, b) => a + b, 0) / n;
  const matches = maskTest(expr, phrases);

  // Walk every phrase's rows together, in rowid order, as FTS5 walks its doclists.
  const best: Ranked[] = [];
  const at = lists.map(() => 0);
  const f = lists.map(() => 0);
  while (true) {
    let rowid = Number.POSITIVE_INFINITY;
    for (let i = 0; i < lists.length; i++) {
      const r = lists[i]!.rowids[at[i]!];
      if (r !== undefined && r < rowid) rowid = r;
    }
    if (rowid === Number.POSITIVE_INFINITY) break;
    let mask = 0;
    for (let i = 0; i < lists.length; i++) {
      const list = lists[i]!;
      if (list.rowids[at[i]!] === rowid) {
        mask |= 1 << i;
        f[i] = list.freqs[at[i]!]!;
        at[i]!++;
      } else f[i] = 0;
    }
    if (!matches(mask) || !keep(rowid)) continue;
    const d = snapshot.length(rowid);
    let score = 0.0;
    for (let i = 0; i < lists.length; i++) score += idf[i]! * ((f[i]! * (K1 + 1.0)) / (f[i]! + K1 * (1 - B + (B * d) / avgdl)));
    insertBounded(best, rowid, -1.0 * score, limit);
  }
  return best;
}

/** A single term's rows: its count in each column times the column's weight. */
function termRows(snapshot: Fts5Snapshot, term: string, weights: readonly number[]): PhraseRows {
  const out: PhraseRows = { rowids: [], freqs: [] };
  let sorted = true;
  snapshot.visit(term, false, (rowid, counts) => {
    let f = 0;
    for (let c = 0; c < weights.length; c++) f += counts[c]! * weights[c]!;
    if (out.rowids.length && rowid < out.rowids[out.rowids.length - 1]!) sorted = false;
    out.rowids.push(rowid);
    out.freqs.push(f);
  });
  return sorted ? out : sortedRows(out);
}

/** A phrase's instances: positions where its terms follow each other in one column, weighted by that column. */
function phraseRows(snapshot: Fts5Snapshot, terms: string[], weights: readonly number[]): PhraseRows {
  const rest = terms.slice(1).map((term) => {
    const at = new Map<number, Set<number>>();
    snapshot.visit(term, true, (rowid, _, positions) => at.set(rowid, new Set(positions)));
    return at;
  });
  const out: PhraseRows = { rowids: [], freqs: [] };
  snapshot.visit(terms[0]!, true, (rowid, _, positions) => {
    const following = rest.map((at) => at.get(rowid));
    if (following.some((s) => s === undefined)) return;
    let f = 0;
    for (const start of positions!) if (following.every((s, k) => s!.has(start + k + 1))) f += weights[Math.floor(start / 2 ** 32)]!;
    if (f > 0) {
      out.rowids.push(rowid);
      out.freqs.push(f);
    }
  });
  return sortedRows(out);
}

/** Rows from several segments, put in rowid order. */
function sortedRows(rows: PhraseRows): PhraseRows {
  const order = rows.rowids.map((_, i) => i).sort((a, b) => rows.rowids[a]! - rows.rowids[b]!);
  return { rowids: order.map((i) => rows.rowids[i]!), freqs: order.map((i) => rows.freqs[i]!) };
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
