import type { VectorStore } from "../../../embeddings/store.ts";
import type { OpContext } from "../../../ops/context.ts";
import type { Warning } from "../../../ops/schemas.ts";
import { relatedNotes } from "../../../search/ops.ts";
import { inverseDocumentFrequency, wordCounts } from "../../../search/related.ts";
import { centroid } from "../../../search/semantic.ts";
import { type AiScope, resolveScope } from "../../scope.ts";
import { excludedWarning } from "../grounded.ts";

/** Neighbour discovery for ai_relate: the candidate pool, each source's nearest notes, and how similar each pair is. */

export type RetrieveMode = "lexical" | "semantic" | "hybrid";

/** A source note and one of its neighbours. */
export interface Pair {
  src: string;
  dst: string;
  /** 0..1 (NoteSimilarity). */
  similarity: number;
  /** The source's first link to the neighbour, from the index's link graph; null when it has none. */
  link: { line: number; raw: string } | null;
}

export interface CandidatePool {
  /** Note ids a neighbour may have; null: every note. */
  allowed: Set<number> | null;
  size: number;
}

/** The notes neighbours may come from: the candidate scope (default every note), less what the AI globs deny, before anything is read. */
export async function candidatePool(ctx: OpContext, scope: AiScope | undefined, warnings: Warning[]): Promise<CandidatePool> {
  const globs = ctx.ai.globs();
  const notes = ctx.index.files.notes();
  if (!scope) {
    const eligible = notes.filter((n) => globs.allows(n.path));
    return { allowed: eligible.length === notes.length ? null : new Set(eligible.map((n) => n.id)), size: eligible.length };
  }
  const resolved = await resolveScope(ctx, scope, globs);
  if (resolved.excluded.length) warnings.push(excludedWarning(resolved.excluded.length));
  const inScope = new Set(resolved.paths);
  return { allowed: new Set(notes.filter((n) => inScope.has(n.path)).map((n) => n.id)), size: inScope.size };
}

/**
 * Each source's `topK` nearest notes in the pool, by the vault's own `related` retrieval; sources
 * in the order given, each one's neighbours best first. A pair of notes appears once, from the
 * source met first (docs/decisions.md, "ai_relate"): when both notes are sources, the second
 * one's search does not list the first again.
 */
export function neighbourPairs(
  ctx: OpContext,
  sources: readonly string[],
  pool: CandidatePool,
  opts: { mode: RetrieveMode; topK: number },
  warnings: Warning[],
): Pair[] {
  const pathOf = new Map(ctx.index.files.notes().map((n) => [n.id, n.path]));
  const similarity = new NoteSimilarity(ctx);
  const seen = new Set<string>();
  const pairs: Pair[] = [];
  for (const src of sources) {
    const found = relatedNotes(ctx, src, { requested: opts.mode, limit: opts.topK, allowed: pool.allowed, warnings });
    const links = firstLinks(ctx, src);
    for (const hit of found.hits) {
      const dst = pathOf.get(hit.fileId);
      if (!dst) continue;
      const key = src < dst ? `${src}\u0000${dst}` : `${dst}\u0000${src}`;
      if (seen.has(key)) continue;
      seen.add(key);
      pairs.push({ src, dst, similarity: similarity.between(src, dst), link: links.get(dst) ?? null });
    }
  }
  return pairs;
}

function firstLinks(ctx: OpContext, src: string): Map<string, { line: number; raw: string }> {
  const out = new Map<string, { line: number; raw: string }>();
  for (const l of ctx.index.links.forward(src)) if (l.target && !out.has(l.target)) out.set(l.target, { line: l.line, raw: l.raw });
  return out;
}

/** Words of a note's profile: enough to tell topics apart, few enough to weigh each by the index once. */
const PROFILE_WORDS = 40;

/**
 * How alike two notes are, 0..1, symmetric (docs/decisions.md, "ai_relate"): the cosine of their
 * directions in embedding space (the normalised mean of their chunks' vectors) when the stored
 * vectors cover both; otherwise the cosine of their TF-IDF word profiles (each note's most frequent
 * words, weighted by how rare they are in the vault).
 */
class NoteSimilarity {
  private readonly store: VectorStore | null;
  private readonly idf: (word: string) => number;
  private readonly directions = new Map<string, Float32Array | null>();
  private readonly profiles = new Map<string, Map<string, number>>();

  constructor(private readonly ctx: OpContext) {
    const state = ctx.embeddings.availability(ctx).state;
    this.store = state === "ready" || state === "provider_down" ? ctx.embeddings.vectors(false) : null;
    this.idf = inverseDocumentFrequency(ctx);
  }

  between(a: string, b: string): number {
    const da = this.direction(a);
    const db = da && this.direction(b);
    const cos = da && db ? dot(da, db) : cosine(this.profile(a), this.profile(b));
    return Math.round(Math.max(0, Math.min(1, cos)) * 10_000) / 10_000;
  }

  private fileId(path: string): number | null {
    return this.ctx.index.notes.byPath(path)?.id ?? null;
  }

  private direction(path: string): Float32Array | null {
    if (!this.store) return null;
    const known = this.directions.get(path);
    if (known !== undefined) return known;
    const id = this.fileId(path);
    const hashes = id === null ? [] : this.ctx.index.chunks.hashes(id, null);
    const vectors = this.store.vectorsOf(hashes);
    const direction = centroid([...vectors.values()]);
    this.directions.set(path, direction);
    return direction;
  }

  private profile(path: string): Map<string, number> {
    let profile = this.profiles.get(path);
    if (!profile) {
      const id = this.fileId(path);
      const counts = wordCounts(id === null ? "" : this.ctx.index.chunks.texts(id, null).join("\n"));
      const top = [...counts].sort(([wa, a], [wb, b]) => b - a || (wa < wb ? -1 : 1)).slice(0, PROFILE_WORDS);
      profile = new Map(top.map(([word, n]) => [word, n * this.idf(word)]));
      this.profiles.set(path, profile);
    }
    return profile;
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] ?? 0) * (b[i] ?? 0);
  return s;
}

function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let common = 0;
  for (const [word, w] of a) common += w * (b.get(word) ?? 0);
  const norm = (m: Map<string, number>) => Math.sqrt([...m.values()].reduce((s, w) => s + w * w, 0));
  const denominator = norm(a) * norm(b);
  return denominator === 0 ? 0 : common / denominator;
}
