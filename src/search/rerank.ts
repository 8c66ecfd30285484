import type { ChatProvider } from "../providers/types.ts";
import { ProviderError } from "../providers/types.ts";

/** Characters of each candidate the chat model sees. */
const PASSAGE_CHARS = 700;
export const MAX_RERANK_CANDIDATES = 50;

export interface RerankCandidate {
  title: string;
  heading: string | null;
  text: string;
}

const SYSTEM =
  "You grade search results. For each numbered passage, rate how well it answers or matches the query, " +
  "from 0 (unrelated) to 10 (exactly what was asked). Judge meaning, not shared words. " +
  'Reply with JSON only: {"scores":[{"id":"<passage number>","relevance":<0-10>}]}, one entry per passage.';

export const RERANK_SCHEMA = {
  type: "object",
  properties: {
    scores: {
      type: "array",
      items: {
        type: "object",
        properties: { id: { type: "string" }, relevance: { type: "number", description: "0 to 10." } },
        required: ["id", "relevance"],
        additionalProperties: false,
      },
    },
  },
  required: ["scores"],
  additionalProperties: false,
} as const;

/**
 * Asks the chat model for the relevance (0…1) of each candidate, in one call with a timeout (and
 * the caller's signal, aborted when the search is cancelled). Throws ProviderError on failure or a
 * reply it cannot use; the caller keeps the fused order.
 */
export async function rerankScores(
  chat: ChatProvider,
  query: string,
  candidates: RerankCandidate[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<number[]> {
  const passages = candidates
    .map((c, i) => {
      const head = [c.title, c.heading].filter(Boolean).join(" — ");
      const text = c.text.replace(/\s+/g, " ").trim().slice(0, PASSAGE_CHARS);
      return `[${i + 1}] ${head}\n${text}`;
    })
    .join("\n\n");
  const q = query.replace(/\s+/g, " ").trim();
  const { structured } = await chat.generate({
    system: SYSTEM,
    messages: [{ role: "user", content: `Query: ${q}\n\nPassages:\n\n${passages}` }],
    callerText: [q],
    jsonSchema: RERANK_SCHEMA,
    maxOutputTokens: 40 + candidates.length * 20,
    // Grades must not depend on the configured creative temperature.
    temperature: 0,
    seed: 0,
    signal: signal ? AbortSignal.any([AbortSignal.timeout(timeoutMs), signal]) : AbortSignal.timeout(timeoutMs),
  });
  const parsed = structured as { scores?: { id?: unknown; relevance?: unknown }[] } | undefined;
  if (!parsed || !Array.isArray(parsed.scores)) throw new ProviderError("bad_response", "rerank: the reply is not the expected JSON");
  const out = new Array<number>(candidates.length).fill(NaN);
  for (const s of parsed.scores) {
    const i = Number(String(s.id ?? "").replace(/\D/g, "")) - 1;
    const r = Number(s.relevance);
    if (Number.isInteger(i) && i >= 0 && i < out.length && Number.isFinite(r)) out[i] = Math.max(0, Math.min(10, r)) / 10;
  }
  const graded = out.filter((x) => !Number.isNaN(x)).length;
  if (graded < Math.ceil(candidates.length / 2)) throw new ProviderError("bad_response", "rerank: too few passages were graded");
  // An ungraded passage keeps a neutral grade rather than sinking.
  return out.map((x) => (Number.isNaN(x) ? 0.5 : x));
}

/**
 * Position-aware blending (docs/search.md, Reranking): the retrieval score weighs 75% for fused
 * ranks 1–3, 60% for 4–10 and 40% below, so the reranker cannot throw an exact match off the top
 * but decides more further down. `retrieval` is normalised to 0…1 by the caller.
 */
export function blendWeight(rank1: number): number {
  return rank1 <= 3 ? 0.75 : rank1 <= 10 ? 0.6 : 0.4;
}

export function blend(retrieval: number[], relevance: number[]): number[] {
  return retrieval.map((r, i) => {
    const w = blendWeight(i + 1);
    // relevance is retrieval with some entries regraded, of the same length: the default is never taken.
    return w * r + (1 - w) * (relevance[i] ?? r);
  });
}
