import type { ScoredNote } from "../index/storage/queries/fts.ts";
import type { FileScope } from "../index/storage/queries/lists.ts";
import type { IndexStore } from "../index/storage/store.ts";
import { type CompiledQuery, compileQuery } from "./query.ts";

export interface LexicalPage {
  /** Notes found, best first. */
  hits: ScoredNote[];
  hasMore: boolean;
  /** The compiled FTS5 expression (null when the query had no searchable terms). */
  match: string | null;
  cjk: string[];
}

/**
 * A query matching at most this many notes is ranked by bm25 over all of them, in one pass.
 * Choosing candidates (a count per item, walks, then bm25 over a list of ids) was slower than
 * scoring everything for queries of 500–1,700 matches, and a cap of 2,000 beat 1,000 on those of
 * 1,000–1,700 (docs/decisions.md, "Marking matches without FTS5"); above it a very common word
 * still costs a bounded walk.
 */
export const EXACT_CAP = 2000;

/**
 * The most candidates bm25 scores for a query that matches more than EXACT_CAP notes. Scoring
 * costs about a microsecond per note while walking the match lists costs a few dozen
 * nanoseconds, so a very common word's notes are walked, not scored.
 */
export const SCORE_CAP = 500;

/** Substring hits a CJK term may add to a lexical page. */
const CJK_SUBSTRING_LIMIT = 1000;

/**
 * BM25 over notes (one full-text row per note); filters and exclusions apply inside SQL so LIMIT
 * still holds. CJK runs also get a substring pass, because unicode61 keeps a run of Han/Kana/Hangul
 * as one token and a word inside it would otherwise never match; those hits rank after every
 * BM25 hit.
 */
export function lexicalSearch(
  index: IndexStore,
  q: string,
  opts: { offset: number; limit: number; allowed: Set<number> | null; excludeFileIds?: number[] },
): LexicalPage {
  const compiled = compileQuery(q);
  const ranked = lexicalNotes(index, compiled, { limit: opts.offset + opts.limit + 1, allowed: opts.allowed, excludeFileIds: opts.excludeFileIds });
  return {
    hits: ranked.slice(opts.offset, opts.offset + opts.limit),
    hasMore: ranked.length > opts.offset + opts.limit,
    match: compiled.match,
    cjk: compiled.cjk,
  };
}

/** The best `limit` notes for a compiled query, then CJK substring hits. */
export function lexicalNotes(
  index: IndexStore,
  compiled: CompiledQuery,
  opts: { limit: number; allowed: Set<number> | null; excludeFileIds?: number[] },
): ScoredNote[] {
  if (compiled.empty || opts.allowed?.size === 0) return [];
  const excluded = [...(opts.excludeFileIds ?? [])];
  for (const run of compiled.excludedCjk) excluded.push(...index.fts.containing(run, { allowed: opts.allowed }, Number.MAX_SAFE_INTEGER));
  const scope: FileScope = { allowed: opts.allowed, excluded };
  const ranked = rankNotes(index, compiled, scope, opts.limit);
  if (!compiled.cjk.length || ranked.length >= opts.limit) return ranked;
  const seen = new Set(ranked.map((h) => h.fileId));
  const floor = ranked.at(-1)?.bm25 ?? 0;
  const excludedWords = compiled.excluded.length ? new Set(index.fts.filesMatching(compiled.excluded.join(" OR "))) : new Set<number>();
  for (const term of compiled.cjk)
    for (const fileId of index.fts.containing(term, scope, CJK_SUBSTRING_LIMIT)) {
      if (seen.has(fileId) || excludedWords.has(fileId)) continue;
      seen.add(fileId);
      // Substring hits carry no term statistics: they rank after every BM25 hit.
      ranked.push({ fileId, bm25: Math.min(floor, 0) + 1e-6 });
    }
  return ranked.slice(0, opts.limit);
}

/**
 * Every matching note is ranked from the index's posting lists (FtsQueries.ranked, the same
 * scores as bm25()). Where that does not apply (a prefix, a character JavaScript does not follow
 * as unicode61 does), bm25() ranks every matching note when there are at most EXACT_CAP of them; otherwise it ranks
 * SCORE_CAP candidates, taken without scoring: every note with one of the query's rarest items
 * (those whose notes add up to at most the cap: the words that decide BM25's order), then notes
 * with every item, then notes with an item in the title, aliases, tags or headings (the columns
 * that weigh most), then the first other matches. Walking the match lists is cheap; scoring every
 * note that has a word found in most notes is what made search grow with the vault.
 */
function rankNotes(index: IndexStore, compiled: CompiledQuery, scope: FileScope, want: number): ScoredNote[] {
  const { match, positive } = compiled;
  if (match === null || positive === null) return [];
  const exact = index.fts.ranked(match, scope, want, { named: compiled.named, dates: compiled.dates });
  if (exact !== null) return exact;
  if (index.fts.countUpTo(match, EXACT_CAP) <= EXACT_CAP) return index.fts.scored(match, scope, want);
  const cap = Math.max(SCORE_CAP, want);
  const items = [...compiled.required, ...compiled.optional];
  // Counted no further than the cap: an item past it is not among the rarest anyway.
  const counted = items.map((item) => ({ item, notes: index.fts.countUpTo(item, cap) }));
  const not = compiled.excluded.length ? ` NOT (${compiled.excluded.join(" OR ")})` : "";
  const rarest: string[] = [];
  let total = 0;
  for (const { item, notes } of counted.sort((a, b) => a.notes - b.notes)) {
    if (total + notes > cap) break;
    rarest.push(item);
    total += notes;
  }
  // Without a required item every item implies `positive`: the rarest alone are the same notes, walked at half the cost.
  const withRarest = compiled.required.length ? `(${positive}) AND (${rarest.join(" OR ")})` : rarest.join(" OR ");
  const steps = [rarest.length ? withRarest : null, items.length > 1 ? items.join(" AND ") : null, `{title aliases tags headings} : (${positive})`, positive];
  const candidates = new Set<number>();
  for (const step of steps) {
    if (step === null) continue;
    for (const id of index.fts.firstMatching(`(${step})${not}`, scope, cap)) {
      if (candidates.size >= cap) break;
      candidates.add(id);
    }
    if (candidates.size >= cap) break;
  }
  return index.fts.scoredAmong(match, [...candidates], want);
}

/** Maps bm25 (negative, unbounded) onto [0, 1): query-independent and monotonic. */
export function normalizeScore(bm25: number): number {
  const s = Math.abs(bm25);
  return Math.round((s / (1 + s)) * 10000) / 10000;
}
