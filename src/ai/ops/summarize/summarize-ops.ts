import { type Static, Type } from "@sinclair/typebox";
import { IndxError } from "../../../core/errors.ts";
import type { OpContext } from "../../../ops/context.ts";
import { defineOp } from "../../../ops/define.ts";
import { type Warning, Warning as WarningSchema } from "../../../ops/schemas.ts";
import { estimateTokens } from "../../../providers/tokens.ts";
import type { Citation, Dropped } from "../../citations.ts";
import { modelSession, runAi } from "../../invocation.ts";
import { type Passage, passagesForPaths, renderPassages } from "../../passages.ts";
import { PROMPT_VERSION, styleLine } from "../../prompts.ts";
import { AiScope } from "../../scope.ts";
import { citationsOf, joinSegments, type KeptSegment, SegmentGrounder, SegmentStream } from "../../segments.ts";
import type { ModelSession } from "../../session.ts";
import type { AiOpName } from "../catalogue.ts";
import { AiUsageSchema, CallControls, Citations, GROUNDED_READ, Language, ScopeResolved, Style } from "../common.ts";
import { groundingFailed, notesInScope, pinned, uniqueWarnings } from "../grounded.ts";
import { noteOutlines } from "./outline.ts";
import { PartialSummaryReply, SUMMARIZE_SYSTEM, SUMMARY_MAX_SEGMENTS, SummaryReply } from "./prompt.ts";

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
    audience: Type.Optional(Type.String({ maxLength: 200, description: "Reader, e.g. 'incident responder'." })),
    include: Type.Optional(
      Type.Array(Type.Union(INCLUDE.map((i) => Type.Literal(i))), {
        maxItems: INCLUDE.length,
        description: "Parts besides the text; default tldr, key_points.",
      }),
    ),
    cite: Type.Optional(Type.Boolean({ default: true, description: "false: an empty summary rather than failing when nothing is grounded." })),
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
  title: "Summarize notes",
  description: "A cited summary of notes.",
  ...GROUNDED_READ,
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
      op: "summarize" satisfies AiOpName,
      ctx,
      input,
      scope: pinned(passages),
      promptVersion: PROMPT_VERSION,
      usesModel: true,
      async produce(session) {
        const s = modelSession(session);
        const budget = ctx.ai.settings().maxInputTokens - estimateTokens(SUMMARIZE_SYSTEM) - 400;
        const mapped = scopeResolved.total_tokens <= budget ? null : await mapStep(ctx, s, input, passages, budget);
        const grounder = new SegmentGrounder(ctx, byId(passages), input.language !== undefined);
        const stream = new SegmentStream(ctx, grounder, "text", SUMMARY_MAX_SEGMENTS);
        let reply: Static<typeof SummaryReply>;
        try {
          reply = await s.json({
            system: `${SUMMARIZE_SYSTEM} ${instructions(input, include)}${mapped ? REDUCE_INSTRUCTION : ""}`,
            messages: [{ role: "user", content: mapped ? renderPoints(mapped.points, passages) : renderPassages(passages) }],
            schema: SummaryReply,
            follow: stream.follow,
          });
        } finally {
          await stream.settled();
        }
        const text = await grounder.groundAll("text", reply.text);
        const tldr = include.has("tldr") ? await grounder.groundAll("tldr", reply.tldr) : [];
        const points = include.has("key_points") ? await grounder.groundAll("key_points", reply.key_points) : [];
        const questions = include.has("open_questions") ? await grounder.groundAll("open_questions", reply.open_questions) : [];
        const citations = citationsOf([...text, ...tldr, ...points, ...questions]);
        if (input.cite !== false && citations.length === 0) throw groundingFailed([...(mapped?.dropped ?? []), ...grounder.dropped]);
        stream.finish(text, citations);
        return {
          scope_resolved: scopeResolved,
          summary: {
            ...(tldr.length ? { tldr: joinSegments(tldr.map((k) => k.text)) } : {}),
            text: joinSegments(text.map((k) => k.text)),
            ...(include.has("key_points") ? { key_points: points.map((k) => k.text) } : {}),
            ...(include.has("open_questions") ? { open_questions: questions.map((k) => k.text) } : {}),
            ...outline,
          },
          citations,
          usage: s.usage,
          warnings: uniqueWarnings([
            ...warnings,
            ...droppedWarning((mapped?.ungrounded ?? 0) + grounder.ungrounded),
            ...(mapped?.warnings ?? []),
            ...grounder.warnings,
          ]),
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

const byId = (passages: readonly Passage[]) => new Map(passages.map((p) => [p.id, p]));

/** Key points of the map step that survived grounding, with what the step dropped. */
interface Mapped {
  points: KeptSegment[];
  warnings: Warning[];
  dropped: Dropped[];
  ungrounded: number;
}

/**
 * The map step: each batch of passages that fits the budget yields key points, each grounded
 * like any other segment. The reduce step sees the surviving points with the quotes that
 * verified them, labelled with the original passage ids, and cites those passages: its segments
 * are verified against the original passages, never against the points' own words.
 */
async function mapStep(ctx: OpContext, session: ModelSession, input: Input, passages: Passage[], budget: number): Promise<Mapped> {
  const batches = batchByBudget(passages, budget);
  if (batches.length > MAX_MAP_BATCHES)
    throw new IndxError("ai_input_too_large", `The scope needs more than ${MAX_MAP_BATCHES} model requests to summarize; narrow it.`, {
      tokens: passages.reduce((n, p) => n + p.tokens, 0),
      max_input_tokens: ctx.ai.settings().maxInputTokens,
    });
  const out: Mapped = { points: [], warnings: [], dropped: [], ungrounded: 0 };
  for (const [b, batch] of batches.entries()) {
    const reply = await session.json({
      system: `${SUMMARIZE_SYSTEM} List the key points of these passages. ${styleLine(input.style, input.language, input.audience)}`,
      messages: [{ role: "user", content: renderPassages(batch) }],
      schema: PartialSummaryReply,
    });
    const grounder = new SegmentGrounder(ctx, byId(batch), input.language !== undefined);
    const kept = await grounder.groundAll(`map${b}`, reply.key_points);
    out.points.push(...kept);
    out.warnings.push(...grounder.warnings);
    out.dropped.push(...grounder.dropped);
    out.ungrounded += grounder.ungrounded;
  }
  return out;
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

const REDUCE_INSTRUCTION =
  " The sources are key points already drawn from the notes, each followed by the verified quotes behind it as passages; cite those passage ids and quotes.";

/** The reduce step's sources: each verified point, then its quotes as passages under the ids of the passages they come from. */
function renderPoints(points: readonly KeptSegment[], passages: readonly Passage[]): string {
  const of = (c: Citation) => passages.find((p) => p.path === c.path && p.startLine === c.span?.[0]);
  return points
    .map((p, i) => {
      const quotes = p.citations.flatMap((c) => {
        const source = of(c);
        return source ? [{ ...source, text: c.snippet ?? "" }] : [];
      });
      return `Key point ${i + 1}: ${p.text.replace(/\s+/g, " ")}\n${renderPassages(quotes)}`;
    })
    .join("\n");
}

function droppedWarning(count: number): Warning[] {
  return count > 0
    ? [
        {
          code: "ungrounded_dropped",
          message: `${count} segment${count === 1 ? "" : "s"} without a verified, supporting citation ${count === 1 ? "was" : "were"} dropped.`,
        },
      ]
    : [];
}
