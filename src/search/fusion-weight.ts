import { IndxError } from "../core/errors.ts";
import type { VectorStore } from "../embeddings/store.ts";
import type { LinkContext } from "../index/storage/queries/links.ts";
import type { IndexStore } from "../index/storage/store.ts";
import { fuse } from "./hybrid.ts";
import { lexicalNotes } from "./lexical.ts";
import { compileQuery } from "./query.ts";
import { vectorChunks } from "./semantic.ts";

/**
 * How much the vector list counts in `auto` search, measured on the vault itself and stored with
 * the vectors (so a new model is measured again). The queries are the vault's own links: the line
 * a link stands in, without the link, should find the note it links to. The linking note is left
 * out of both lists, so neither can win by finding the line itself.
 */
export interface FusionDecision {
  /** Weight of the vector list in fusion (the lexical list weighs 1); 0: auto stays lexical. */
  weight: number;
  /** Link lines measured. */
  queries: number;
  /** Mean reciprocal rank (within 10) of the linked note: lexical alone, then fused at each weight tried. */
  lexical: number;
  fused: Record<string, number>;
  /** Chunks embedded when measured: a vault whose vectors grew or shrank by a tenth is measured again. */
  chunks: number;
  reason: string;
}

/** The weights tried for the vector list. */
export const FUSION_WEIGHTS = [0.25, 0.5, 1, 2] as const;
/** Fewer link lines than this say too little: auto stays lexical. */
export const MIN_QUERIES = 20;
const MAX_QUERIES = 120;
/** A weight must beat lexical alone by this much MRR to be used. */
const MARGIN = 0.01;
const DEPTH = 50;

/** Link lines as queries: the line without its links, at least three words of three letters. */
export function linkQueries(contexts: LinkContext[]): { q: string; srcId: number; dstId: number }[] {
  const out: { q: string; srcId: number; dstId: number }[] = [];
  const seen = new Set<string>();
  for (const c of contexts) {
    const key = `${c.srcId}>${c.dstId}`;
    if (seen.has(key)) continue;
    const line = c.text.split("\n")[c.line - c.startLine] ?? "";
    const q = line
      .replace(/!?\[\[[^\]]*\]\]/g, " ")
      .replace(/!?\[[^\]]*\]\([^)]*\)/g, " ")
      .replace(/^[\s>*+-]*(\[.\])?\s*/, "")
      .trim();
    if ((q.match(/\p{L}{3,}/gu) ?? []).length < 3 || compileQuery(q).empty) continue;
    seen.add(key);
    out.push({ q, srcId: c.srcId, dstId: c.dstId });
    if (out.length >= MAX_QUERIES) break;
  }
  return out;
}

/** Measures lexical alone against fusion at each weight, and picks the weight (0 unless one clearly helps). */
export async function measureFusion(
  index: IndexStore,
  store: VectorStore,
  embed: (texts: string[]) => Promise<ArrayLike<number>[]>,
  chunks: number,
  /** Notes the AI deny globs exclude: their link lines are never sent to the embeddings provider. */
  deniedIds: ReadonlySet<number> = new Set(),
): Promise<FusionDecision> {
  const queries = linkQueries(index.links.contexts(MAX_QUERIES * 4).filter((c) => !deniedIds.has(c.srcId)));
  const base = { queries: queries.length, chunks, fused: {} as Record<string, number> };
  if (queries.length < MIN_QUERIES)
    return { ...base, weight: 0, lexical: 0, reason: `only ${queries.length} link lines to measure with (${MIN_QUERIES} needed): lexical` };
  const vectors = await embed(queries.map((x) => x.q));
  const rr = { lexical: 0, fused: FUSION_WEIGHTS.map(() => 0) };
  queries.forEach((x, i) => {
    const scope = { allowed: null, excludeFileIds: [x.srcId] };
    const lex = lexicalNotes(index, compileQuery(x.q), { limit: DEPTH, ...scope }).map((n) => ({ fileId: n.fileId, chunkId: null }));
    const vector = vectors[i];
    if (vector === undefined) throw new IndxError("internal", "measureFusion: fewer query vectors than link lines");
    const vec = vectorChunks(index, store, vector, { limit: DEPTH, ...scope, distinctNotes: 10 });
    rr.lexical += reciprocalRank(lex, x.dstId);
    FUSION_WEIGHTS.forEach((w, wi) => {
      rr.fused[wi] = (rr.fused[wi] ?? 0) + reciprocalRank(fuse([lex, vec], [1, w]), x.dstId);
    });
  });
  const mrr = (sum: number) => Math.round((sum / queries.length) * 10000) / 10000;
  const lexical = mrr(rr.lexical);
  const scored = FUSION_WEIGHTS.map((w, wi) => ({ w, score: mrr(rr.fused[wi] ?? 0) }));
  const fused = Object.fromEntries(scored.map(({ w, score }) => [String(w), score]));
  // The best weight, the lightest on a tie; used only when it clearly beats lexical alone.
  let weight = 0;
  let best = -1;
  for (const { w, score } of scored)
    if (score > best) {
      best = score;
      weight = w;
    }
  if (best < lexical + MARGIN) weight = 0;
  const reason = weight
    ? `the vector list at weight ${weight} found linked notes better (MRR ${best} vs ${lexical} lexical)`
    : `no weight of the vector list beat lexical search by ${MARGIN} MRR (${lexical} lexical): lexical`;
  return { ...base, weight, lexical, fused, reason };
}

function reciprocalRank(list: { fileId: number }[], target: number): number {
  const at = list.slice(0, 10).findIndex((n) => n.fileId === target);
  return at < 0 ? 0 : 1 / (at + 1);
}

/** A stored decision, or null when there is none (or it does not parse: it is measured again). */
export function parseDecision(json: string | null): FusionDecision | null {
  if (!json) return null;
  try {
    const d = JSON.parse(json) as FusionDecision;
    return typeof d.weight === "number" && typeof d.chunks === "number" ? d : null;
  } catch {
    return null;
  }
}

/** True when the decision was measured on a vault of about this many embedded chunks. */
export function decisionCurrent(d: FusionDecision | null, chunks: number): d is FusionDecision {
  return d !== null && Math.abs(d.chunks - chunks) <= Math.max(1, d.chunks) / 10;
}

/** `search.vector_weight`: "auto" (null: the measured weight) or a weight from 0 to 4. */
export function configuredWeight(value: string | null): number | null {
  if (value === null || value === "" || value === "auto") return null;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 4)
    throw new IndxError("validation_failed", `search.vector_weight must be "auto" or a number from 0 to 4, not ${JSON.stringify(value)}.`, {
      key: "search.vector_weight",
    });
  return n;
}
