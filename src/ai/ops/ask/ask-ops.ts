import { type Static, Type } from "@sinclair/typebox";
import type { OpContext } from "../../../ops/context.ts";
import { defineOp } from "../../../ops/define.ts";
import { invoke } from "../../../ops/invoke.ts";
import { type Warning, Warning as WarningSchema } from "../../../ops/schemas.ts";
import { estimateTokens } from "../../../providers/tokens.ts";
import { vaultSearch } from "../../../search/ops.ts";
import { modelSession, runAi } from "../../invocation.ts";
import { type Passage, passagesForChunks, renderPassages } from "../../passages.ts";
import { PROMPT_VERSION, styleLine } from "../../prompts.ts";
import { AiScope, resolveScope } from "../../scope.ts";
import { citationsOf, joinSegments, SegmentGrounder, SegmentStream, sharesWords } from "../../segments.ts";
import type { AiOpName } from "../catalogue.ts";
import { AiUsageSchema, CallControls, Citations, GROUNDED_READ, Language, Style } from "../common.ts";
import { excludedWarning, fitToBudget, pinned, uniqueWarnings } from "../grounded.ts";
import { ASK_MAX_SEGMENTS, ASK_SYSTEM, AskReply } from "./prompt.ts";

const DONT_KNOW = "I don't know based on the indexed vault.";

const Turn = Type.Object({
  role: Type.Union([Type.Literal("user"), Type.Literal("assistant")]),
  content: Type.String({ maxLength: 20_000 }),
});

const Input = Type.Object(
  {
    question: Type.String({ minLength: 1, maxLength: 4_000, description: "The question." }),
    scope: Type.Optional(AiScope),
    mode: Type.Optional(
      Type.Union([Type.Literal("lexical"), Type.Literal("semantic"), Type.Literal("hybrid")], {
        description: "Retrieval mode.",
      }),
    ),
    top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 8, description: "Notes the model reads." })),
    style: Type.Optional(Style),
    language: Language,
    cite: Type.Optional(
      Type.Boolean({
        default: true,
        description: "Ignored: answers are always cited.",
      }),
    ),
    conversation_id: Type.Optional(Type.String({ maxLength: 200, description: "Partitions the cache only." })),
    history: Type.Optional(Type.Array(Turn, { maxItems: 40, description: "Earlier turns, oldest first." })),
    ...CallControls,
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  answer: Type.String({ description: "Markdown, drawn only from the cited passages." }),
  confidence: Type.Union([Type.Literal("high"), Type.Literal("medium"), Type.Literal("low"), Type.Literal("unknown")]),
  citations: Citations,
  retrieved: Type.Array(Type.Object({ path: Type.String(), score: Type.Number(), matched_in: Type.Array(Type.String()) }), {
    description: "What retrieval found, best first: the notes the model read.",
  }),
  followups: Type.Array(Type.String(), { description: "Questions worth asking next." }),
  usage: AiUsageSchema,
  warnings: Type.Array(WarningSchema),
});
type Output = Static<typeof Output>;

export const aiAsk = defineOp({
  name: "ai_ask",
  title: "Ask the vault",
  description: "Answer a question from the notes, with citations.",
  ...GROUNDED_READ,
  ai: { needs: "chat" },
  input: Input,
  output: Output,
  async run(ctx, input): Promise<Output> {
    const warnings: Warning[] = [];
    const topK = input.top_k ?? 8;
    const key = JSON.stringify([input.question, input.mode ?? "hybrid", topK, input.scope ?? null]);
    const found = await ctx.ai.retrieval(key, async () => {
      const w: Warning[] = [];
      return { hits: await retrieve(ctx, input, topK, w), warnings: w };
    });
    const hits = found.hits;
    warnings.push(...found.warnings);
    const retrieved = hits.map((h) => ({ path: h.path, score: h.score, matched_in: h.matched_in }));
    const fixed = estimateTokens(ASK_SYSTEM) + estimateTokens(input.question) + (input.history ?? []).reduce((n, t) => n + estimateTokens(t.content), 0);
    const passages = fitToBudget(
      passagesForChunks(
        ctx,
        hits.map((h) => h.chunk_id),
      ),
      ctx.ai.settings().maxInputTokens,
      fixed,
    );
    if (passages.length === 0 || !passages.some((p) => aboveFloor(input.question, p, hits))) return dontKnow(ctx, retrieved, warnings);
    const byId = new Map(passages.map((p) => [p.id, p]));
    return runAi({
      op: "ask" satisfies AiOpName,
      ctx,
      input,
      scope: pinned(passages),
      promptVersion: PROMPT_VERSION,
      usesModel: true,
      async produce(session) {
        const grounder = new SegmentGrounder(ctx, byId, input.language !== undefined);
        const stream = new SegmentStream(ctx, grounder, "segments", ASK_MAX_SEGMENTS, "supported");
        let reply: Static<typeof AskReply>;
        try {
          reply = await modelSession(session).json({
            system: `${ASK_SYSTEM} ${styleLine(input.style, input.language)}`,
            messages: [...(input.history ?? []), { role: "user", content: `${renderPassages(passages)}\n\nQuestion: ${input.question}` }],
            schema: AskReply,
            follow: stream.follow,
          });
        } finally {
          await stream.settled();
        }
        // The model's own word ("not supported") only ever removes text: a segment it gives anyway is not returned.
        const kept = reply.supported ? await grounder.groundAll("segments", reply.segments) : [];
        const dropped = grounder.droppedWarning("segment");
        if (kept.length === 0) return dontKnow(ctx, retrieved, [...warnings, ...dropped, ...grounder.warnings], modelSession(session).usage);
        const followups = await grounder.groundAll("followups", reply.followups);
        const citations = citationsOf(kept);
        stream.finish(kept, citations);
        return {
          answer: joinSegments(kept.map((k) => k.text)),
          confidence: confidenceOf(kept.length, reply.segments.length, grounder.citationsDropped),
          citations,
          retrieved,
          followups: followups.map((f) => f.text),
          usage: modelSession(session).usage,
          warnings: [...warnings, ...grounder.droppedWarning("segment"), ...uniqueWarnings(grounder.warnings)],
        };
      },
    });
  },
  summary: (o) =>
    o.confidence === "low" && o.citations.length === 0
      ? "No grounded answer in the vault"
      : `Answered (${o.confidence} confidence) citing ${o.citations.length} passage${o.citations.length === 1 ? "" : "s"} from ${new Set(o.citations.map((c) => c.path)).size} note${new Set(o.citations.map((c) => c.path)).size === 1 ? "" : "s"}`,
});

type Hit = { path: string; chunk_id: string; score: number; matched_in: string[]; semantic: boolean };

/** Retrieval: the vault's own search, narrowed to the scope and the AI globs; what the globs kept out is reported. */
async function retrieve(ctx: OpContext, input: Static<typeof Input>, topK: number, warnings: Warning[]): Promise<Hit[]> {
  const globs = ctx.ai.globs();
  const inScope = input.scope ? await resolveScope(ctx, input.scope, globs) : null;
  if (inScope?.excluded.length) warnings.push(excludedWarning(inScope.excluded.length));
  const allowed = inScope ? new Set(inScope.paths) : null;
  const found = await invoke(vaultSearch, ctx, {
    q: input.question,
    mode: input.mode ?? "hybrid",
    limit: allowed ? 100 : Math.min(100, topK * 3),
  });
  warnings.push(...found.warnings.filter((w) => w.code !== "query_empty"));
  let denied = 0;
  const hits: Hit[] = [];
  for (const r of found.results) {
    if (allowed && !allowed.has(r.path)) continue;
    if (!globs.allows(r.path)) {
      denied++;
      continue;
    }
    if (hits.length < topK) hits.push({ path: r.path, chunk_id: r.chunk_id, score: r.score, matched_in: r.matched_in, semantic: /semantic/.test(r.reason) });
  }
  if (denied > 0 && !inScope?.excluded.length) warnings.push(excludedWarning(denied));
  return hits;
}

/** "I don't know", streamed too when the caller streams, so the deltas are always the answer. */
function dontKnow(ctx: OpContext, retrieved: Output["retrieved"], warnings: Warning[], usage = { input_tokens: 0, output_tokens: 0, cost_usd: 0 }): Output {
  ctx.aiStream?.({ type: "ai.partial", delta: DONT_KNOW });
  return {
    answer: DONT_KNOW,
    confidence: "low",
    citations: [],
    retrieved,
    followups: [],
    usage: { ...usage },
    warnings: [...uniqueWarnings(warnings), { code: "unsupported_question", message: "The indexed notes do not answer this question." }],
  };
}

/**
 * Confidence from what survived, never from the model's word (docs/decisions.md, "Claim-level
 * grounding"): high when every segment and every citation held, medium when some were dropped
 * but most segments held, low otherwise.
 */
function confidenceOf(kept: number, given: number, citationsDropped: number): Output["confidence"] {
  if (kept === given && citationsDropped === 0) return "high";
  return kept * 2 > given ? "medium" : "low";
}

/**
 * The relevance floor: a passage the model may answer from shares a content word with the
 * question, or retrieval found it by meaning (a semantic hit). Below it, the answer is "I don't
 * know" without asking the model.
 */
function aboveFloor(question: string, passage: Passage, hits: readonly Hit[]): boolean {
  const hit = hits.find((h) => h.chunk_id === `${passage.path}#${passage.ord}`);
  if (hit?.semantic) return true;
  return sharesWords(question, `${passage.path} ${passage.heading ?? ""} ${passage.text}`);
}
