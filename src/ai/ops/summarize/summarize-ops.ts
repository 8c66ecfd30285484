import { type Static, Type } from "@sinclair/typebox";
import { IndxError } from "../../../core/errors.ts";
import type { OpContext } from "../../../ops/context.ts";
import { defineOp } from "../../../ops/define.ts";
import { type Warning, Warning as WarningSchema } from "../../../ops/schemas.ts";
import { estimateTokens } from "../../../providers/tokens.ts";
import { type Citation, uniqueCitations, verifyCitations } from "../../citations.ts";
import { runAi } from "../../invocation.ts";
import { type Passage, passagesForPaths, renderPassages } from "../../passages.ts";
import { PartialSummaryReply, PROMPT_VERSION, SUMMARIZE_SYSTEM, SummaryReply, styleLine } from "../../prompts.ts";
import { AiScope } from "../../scope.ts";
import type { ModelSession } from "../../session.ts";
import { AiUsageSchema, CallControls, Citations, Language, ScopeResolved, Style } from "../common.ts";
import { groundingFailed, notesInScope, pinned, streamCitations, uniqueWarnings } from "../grounded.ts";
import { noteOutlines } from "./outline.ts";

const INCLUDE = ["tldr", "key_points", "open_questions", "outline"] as const;
const LENGTH_TOKENS = { short: 50, medium: 200, long: 600 } as const;
/** Map-reduce never makes more model requests than this for one summary (ai_input_too_large beyond). */
const MAX_MAP_BATCHES = 32;

const Input = Type.Object(
  {
    scope: AiScope,
    style: Type.Optional(Style),
    length: Type.Optional(
      Type.Union([Type.Literal("short"), Type.Literal("medium"), Type.Literal("long")], { default: "medium", description: "About 50, 200 or 600 tokens." }),
    ),
    language: Language,
    audience: Type.Optional(Type.String({ maxLength: 200, description: "Who reads the summary, e.g. 'incident responder'." })),
    include: Type.Optional(
      Type.Array(Type.Union(INCLUDE.map((i) => Type.Literal(i))), {
        maxItems: INCLUDE.length,
        description: "Parts besides the text (default: tldr, key_points). outline is the notes' headings, read without the model.",
      }),
    ),
    cite: Type.Optional(Type.Boolean({ default: true, description: "Drop key points without a verified citation; fail when none survives." })),
    ...CallControls,
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  scope_resolved: ScopeResolved,
  summary: Type.Object({
    tldr: Type.Optional(Type.String()),
    text: Type.String({ description: "Markdown." }),
    key_points: Type.Optional(Type.Array(Type.String(), { description: "Each backed by at least one of the citations." })),
    open_questions: Type.Optional(Type.Array(Type.String())),
    outline: Type.Optional(Type.Array(Type.Object({ heading: Type.String(), line: Type.Integer(), path: Type.String() }))),
  }),
  citations: Citations,
  usage: AiUsageSchema,
  warnings: Type.Array(WarningSchema),
});
type Output = Static<typeof Output>;
type Input = Static<typeof Input>;

export const aiSummarize = defineOp({
  name: "ai_summarize",
  errors: [
    "ai_unavailable",
    "ai_provider_error",
    "ai_quota_exceeded",
    "ai_input_too_large",
    "idempotency_key_reused",
    "cancelled",
    "ai_grounding_failed",
    "not_found",
    "path_invalid",
  ],
  title: "Summarize notes",
  description:
    "A grounded summary of one note, several, or a scope (glob, tag, query, a note and its links): text, tl;dr, key points and open questions, each key point backed by a verified citation. Scopes too large for one prompt are summarized map-reduce.",
  scope: "vault:read",
  safe: true,
  ai: { needs: "chat" },
  input: Input,
  output: Output,
  async run(ctx, input): Promise<Output> {
    const warnings: Warning[] = [];
    const paths = await notesInScope(ctx, input.scope, warnings);
    const passages = passagesForPaths(ctx, paths);
    const include = new Set(input.include ?? ["tldr", "key_points"]);
    const scopeResolved = { paths, total_tokens: passages.reduce((n, p) => n + p.tokens, 0) };
    const outline = include.has("outline") ? { outline: noteOutlines(ctx, paths) } : {};
    return runAi({
      op: "summarize",
      ctx,
      input,
      scope: pinned(passages),
      promptVersion: PROMPT_VERSION,
      usesModel: true,
      async produce(session) {
        const s = session!;
        const budget = ctx.ai.settings().maxInputTokens - estimateTokens(SUMMARIZE_SYSTEM) - 400;
        const points = scopeResolved.total_tokens <= budget ? null : await mapStep(ctx, s, input, passages, budget);
        const reply = await s.json({
          system: `${SUMMARIZE_SYSTEM} ${instructions(input, include)}`,
          messages: [{ role: "user", content: points ? renderPoints(points) : renderPassages(passages) }],
          schema: SummaryReply,
        });
        const grounded = points ? fromPoints(reply, points) : await verifyPoints(ctx, reply, passages);
        if (input.cite !== false && grounded.citations.length === 0) throw groundingFailed(grounded.dropped);
        if (grounded.ungrounded > 0)
          warnings.push({ code: "ungrounded_dropped", message: `${grounded.ungrounded} key point(s) without a verified citation were dropped.` });
        streamCitations(ctx, grounded.citations);
        return {
          scope_resolved: scopeResolved,
          summary: {
            ...(include.has("tldr") && reply.tldr ? { tldr: reply.tldr } : {}),
            text: reply.text,
            ...(include.has("key_points") ? { key_points: grounded.points } : {}),
            ...(include.has("open_questions") ? { open_questions: reply.open_questions ?? [] } : {}),
            ...outline,
          },
          citations: grounded.citations,
          usage: s.usage,
          warnings: [...warnings, ...grounded.warnings],
        };
      },
    });
  },
  summary: (o) =>
    `Summarized ${o.scope_resolved.paths.length} note${o.scope_resolved.paths.length === 1 ? "" : "s"} with ${o.citations.length} citation${o.citations.length === 1 ? "" : "s"}`,
});

function instructions(input: Input, include: Set<string>): string {
  const length = LENGTH_TOKENS[input.length ?? "medium"];
  return [
    `The text is about ${length} tokens.`,
    include.has("tldr") ? "tldr is one or two sentences." : "Leave tldr empty.",
    include.has("open_questions") ? "open_questions lists what the notes leave unresolved." : "Leave open_questions empty.",
    styleLine(input.style, input.language, input.audience),
  ].join(" ");
}

interface Grounded {
  points: string[];
  citations: Citation[];
  warnings: Warning[];
  dropped: { passage: string; reason: string }[];
  ungrounded: number;
}

/** Verifies each key point's citations; a point none of whose citations survive is dropped. */
async function verifyPoints(ctx: OpContext, reply: Static<typeof SummaryReply>, passages: Passage[]): Promise<Grounded> {
  const byId = new Map(passages.map((p) => [p.id, p]));
  const out: Grounded = { points: [], citations: [], warnings: [], dropped: [], ungrounded: 0 };
  for (const point of reply.key_points) {
    const v = await verifyCitations(ctx, byId, point.citations);
    out.warnings.push(...v.warnings);
    out.dropped.push(...v.dropped);
    if (v.citations.length === 0) {
      out.ungrounded++;
      continue;
    }
    out.points.push(point.text);
    out.citations.push(...v.citations);
  }
  out.citations = uniqueCitations(out.citations);
  out.warnings = uniqueWarnings(out.warnings);
  return out;
}

/** A key point of the map step, with the citations that survived verification. */
interface Point {
  id: string;
  text: string;
  citations: Citation[];
}

/**
 * The map step: each batch of passages that fits the budget yields verified key points; the
 * reduce step then works from those points (cited by id), never from unverified text.
 */
async function mapStep(ctx: OpContext, session: ModelSession, input: Input, passages: Passage[], budget: number): Promise<Point[]> {
  const batches = batchByBudget(passages, budget);
  if (batches.length > MAX_MAP_BATCHES)
    throw new IndxError("ai_input_too_large", `The scope needs more than ${MAX_MAP_BATCHES} model requests to summarize; narrow it.`, {
      tokens: passages.reduce((n, p) => n + p.tokens, 0),
      max_input_tokens: ctx.ai.settings().maxInputTokens,
    });
  const points: Point[] = [];
  for (const batch of batches) {
    const reply = await session.json({
      system: `${SUMMARIZE_SYSTEM} List the key points of these passages. ${styleLine(input.style, input.language, input.audience)}`,
      messages: [{ role: "user", content: renderPassages(batch) }],
      schema: PartialSummaryReply,
    });
    const byId = new Map(batch.map((p) => [p.id, p]));
    for (const point of reply.key_points) {
      const v = await verifyCitations(ctx, byId, point.citations);
      if (v.citations.length > 0) points.push({ id: `K${points.length + 1}`, text: point.text, citations: v.citations });
    }
  }
  return points;
}

function batchByBudget(passages: Passage[], budget: number): Passage[][] {
  const batches: Passage[][] = [];
  let current: Passage[] = [];
  let used = 0;
  for (const p of passages) {
    if (p.tokens > budget)
      throw new IndxError("ai_input_too_large", "One passage alone is larger than ai.max_input_tokens.", { tokens: p.tokens, max_input_tokens: budget });
    if (used + p.tokens > budget && current.length) {
      batches.push(current);
      current = [];
      used = 0;
    }
    current.push(p);
    used += p.tokens;
  }
  if (current.length) batches.push(current);
  return batches;
}

/** The reduce step's sources: the verified key points, as passages the model cites by id. */
function renderPoints(points: Point[]): string {
  return points.map((p) => `<passage id="${p.id}">\n${p.text}\n</passage>`).join("\n");
}

/** The reduce step cites key points by id: each final point inherits the verified citations of the points it cites. */
function fromPoints(reply: Static<typeof SummaryReply>, points: Point[]): Grounded {
  const byId = new Map(points.map((p) => [p.id, p]));
  const out: Grounded = { points: [], citations: [], warnings: [], dropped: [], ungrounded: 0 };
  for (const point of reply.key_points) {
    const sources = point.citations.map((c) => byId.get(c.passage.trim().toUpperCase())).filter((p): p is Point => p !== undefined);
    for (const c of point.citations) if (!byId.has(c.passage.trim().toUpperCase())) out.dropped.push({ passage: c.passage, reason: "unknown_passage" });
    if (sources.length === 0) {
      out.ungrounded++;
      continue;
    }
    out.points.push(point.text);
    out.citations.push(...sources.flatMap((s) => s.citations));
  }
  out.citations = uniqueCitations(out.citations);
  return out;
}
