import { type Static, Type } from "@sinclair/typebox";
import { IndxError } from "../../../core/errors.ts";
import type { OpContext } from "../../../ops/context.ts";
import { defineOp } from "../../../ops/define.ts";
import { LIKE_MARK, type Warning, Warning as WarningSchema } from "../../../ops/schemas.ts";
import { runAi } from "../../invocation.ts";
import { type Passage, passagesForPaths } from "../../passages.ts";
import { AiScope } from "../../scope.ts";
import { type ModelSession, ZERO_USAGE } from "../../session.ts";
import { ProposedPatch } from "../apply/proposed-patch.ts";
import type { AiOpName } from "../catalogue.ts";
import { AiUsageSchema, CallControls, GROUNDED_READ } from "../common.ts";
import { notesInScope, pinned, uniqueWarnings } from "../grounded.ts";
import { classifySource, RELATION_LABELS, type RelatedEdge, RelatedEdge as RelatedEdgeSchema, RelationLabel, ruleEdge } from "./classify.ts";
import { proposeLinks } from "./links.ts";
import { candidatePool, neighbourPairs, type Pair } from "./neighbours.ts";
import { RELATE_PROMPT_VERSION } from "./prompt.ts";

/** Each source is one model request: a scope of more notes is narrowed by the caller. */
const MAX_SOURCES = 50;

/**
 * The source notes: any AI scope, or `{kind: "path", path}` for one note (docs/contracts.md,
 * ai_relate). Flat like AiScope: a union of path, paths and a nested scope cost three times the
 * tokens in the tool list.
 */
const Source = Type.Object(
  {
    ...AiScope.properties,
    kind: Type.Union([Type.Literal("path"), ...AiScope.properties.kind.anyOf], { description: "path: one note, in path; the others as in an AI scope." }),
  },
  { additionalProperties: false, description: `The notes to relate (at most ${MAX_SOURCES}).`, [LIKE_MARK]: AiScope.title },
);

const Input = Type.Object(
  {
    source: Source,
    candidates: Type.Optional(
      Type.Object(AiScope.properties, { additionalProperties: false, title: AiScope.title, description: "Only these notes may be related." }),
    ),
    top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10, description: "Neighbours per note." })),
    retrieve_mode: Type.Optional(
      Type.Union([Type.Literal("lexical"), Type.Literal("semantic"), Type.Literal("hybrid")], {
        default: "hybrid",
        description: "Neighbour search mode.",
      }),
    ),
    classify: Type.Optional(Type.Boolean({ description: "Label each edge." })),
    relations: Type.Optional(Type.Array(RelationLabel, { minItems: 1, maxItems: RELATION_LABELS.length, description: "Only these labels." })),
    threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: "Min confidence." })),
    cite: Type.Optional(Type.Boolean({ default: true, description: "Drop unquoted labelled edges." })),
    propose_links: Type.Optional(Type.Boolean({ default: false, description: "Also draft note_patch ops adding the links." })),
    ...CallControls,
  },
  { additionalProperties: false },
);
type Input = Static<typeof Input>;

const Output = Type.Object({
  edges: Type.Array(RelatedEdgeSchema, { description: "Ordered by confidence, then similarity (both descending), then dst_path." }),
  proposed_patches: Type.Optional(Type.Array(ProposedPatch, { description: "With propose_links: drafts for note_patch (which needs vault:write)." })),
  scope_resolved: Type.Object({
    sources: Type.Array(Type.String(), { description: "The source notes (after the AI allow/deny globs)." }),
    candidates_considered: Type.Integer({ description: "Notes eligible as neighbours (the candidate pool after the globs)." }),
  }),
  usage: AiUsageSchema,
  warnings: Type.Array(WarningSchema),
});
type Output = Static<typeof Output>;

export const aiRelate = defineOp({
  name: "ai_relate",
  title: "Relate notes",
  description: "Labelled, quoted relations between notes and their neighbours.",
  ...GROUNDED_READ,
  ai: { needs: "either" },
  input: Input,
  output: Output,
  async run(ctx, input): Promise<Output> {
    requireSomeModel(ctx);
    const warnings: Warning[] = [];
    const sources = await sourceNotes(ctx, input.source, warnings);
    const pool = await candidatePool(ctx, input.candidates, warnings);
    const mode = input.retrieve_mode ?? "hybrid";
    const topK = input.top_k ?? 10;
    const key = JSON.stringify(["ai_relate", sources, input.candidates ?? null, mode, topK]);
    const found = await ctx.ai.retrieval(key, async () => {
      const w: Warning[] = [];
      return { pairs: neighbourPairs(ctx, sources, pool, { mode, topK }, w), warnings: w };
    });
    warnings.push(...found.warnings);
    const pairs = found.pairs;
    const labelled = input.classify !== false;
    const byModel = labelled && ctx.ai.offers("chat");
    if (labelled && !byModel)
      warnings.push({ code: "chat_unavailable", message: "No chat model: relationships are labelled by a fixed rule, without rationales from a model." });
    const passages = passagesForPaths(ctx, [...new Set([...sources, ...pairs.map((p) => p.dst)])]);
    const passagesOf = groupByPath(passages);
    return runAi({
      op: "relate" satisfies AiOpName,
      ctx,
      input,
      scope: pinned(passages),
      promptVersion: RELATE_PROMPT_VERSION,
      usesModel: byModel && pairs.length > 0,
      async produce(session) {
        const edges = await labelEdges(ctx, session, pairs, passagesOf, input, warnings);
        const kept = edges.filter((e) => input.threshold === undefined || (e.confidence ?? e.similarity) >= input.threshold).sort(byRank);
        const linked = new Set(pairs.filter((p) => p.link).map((p) => `${p.src}\u0000${p.dst}`));
        return {
          edges: kept,
          ...(input.propose_links ? { proposed_patches: await proposeLinks(ctx, kept, (src, dst) => linked.has(`${src}\u0000${dst}`)) } : {}),
          scope_resolved: { sources, candidates_considered: pool.size },
          usage: session?.usage ?? { ...ZERO_USAGE },
          warnings: uniqueWarnings(warnings),
        };
      },
    });
  },
  summary: (o) => {
    const n = o.edges.length;
    const drafts = o.proposed_patches ? `; ${o.proposed_patches.length} link draft${o.proposed_patches.length === 1 ? "" : "s"}` : "";
    return `${n} relationship${n === 1 ? "" : "s"} from ${o.scope_resolved.sources.length} note${o.scope_resolved.sources.length === 1 ? "" : "s"}${drafts}`;
  },
});

/** The pairs as edges: labelled by the model (one request per source), by the fixed rule without one, or not at all (classify: false). */
async function labelEdges(
  ctx: OpContext,
  session: ModelSession | null,
  pairs: readonly Pair[],
  passagesOf: ReadonlyMap<string, Passage[]>,
  input: Input,
  warnings: Warning[],
): Promise<RelatedEdge[]> {
  const labels = input.relations ?? RELATION_LABELS;
  if (session) {
    const edges: RelatedEdge[] = [];
    for (const [src, group] of bySource(pairs))
      edges.push(...(await classifySource(ctx, session, src, group, passagesOf, { labels, cite: input.cite !== false }, warnings)));
    return edges;
  }
  if (input.classify === false) return pairs.map(unlabelled);
  return pairs.flatMap((p) => ruleEdge(p, labels, passagesOf.get(p.src)?.[0]?.etag ?? null) ?? []);
}

/** ai_unavailable unless a chat model or embeddings are configured (a half configuration is validation_failed first). */
function requireSomeModel(ctx: OpContext): void {
  ctx.ai.settings();
  if (!ctx.ai.offers("either"))
    throw new IndxError(
      "ai_unavailable",
      "ai_relate needs embeddings (INDX_EMBEDDINGS_PROVIDER and INDX_EMBEDDINGS_MODEL) or a chat model (INDX_AI_PROVIDER and INDX_AI_MODEL), with ai.enabled on.",
      { required_role: "embeddings", fix: "set INDX_EMBEDDINGS_PROVIDER and INDX_EMBEDDINGS_MODEL, or INDX_AI_PROVIDER and INDX_AI_MODEL" },
    );
}

/** The source notes, sorted, through the AI globs; more than MAX_SOURCES is validation_failed. */
async function sourceNotes(ctx: OpContext, source: Input["source"], warnings: Warning[]): Promise<string[]> {
  const { kind, ...fields } = source;
  let scope: AiScope;
  if (kind !== "path") scope = { kind, ...fields };
  else if (fields.path) scope = { kind: "paths", paths: [fields.path] };
  else throw new IndxError("validation_failed", "A source of kind path needs path.", { field: "source.path" });
  const paths = await notesInScope(ctx, scope, warnings);
  if (paths.length > MAX_SOURCES)
    throw new IndxError("validation_failed", `The source holds ${paths.length} notes, more than ${MAX_SOURCES}; narrow it.`, {
      field: "source",
      notes: paths.length,
      max: MAX_SOURCES,
    });
  return paths;
}

function bySource(pairs: readonly Pair[]): Map<string, Pair[]> {
  const out = new Map<string, Pair[]>();
  for (const p of pairs) out.set(p.src, [...(out.get(p.src) ?? []), p]);
  return out;
}

function groupByPath(passages: readonly Passage[]): Map<string, Passage[]> {
  const out = new Map<string, Passage[]>();
  for (const p of passages) out.set(p.path, [...(out.get(p.path) ?? []), p]);
  return out;
}

const unlabelled = (p: Pair): RelatedEdge => ({ src_path: p.src, dst_path: p.dst, similarity: p.similarity, evidence: [] });

/** Confidence (an unlabelled edge has none and comes last), then similarity, both descending; then dst_path, then src_path. */
function byRank(a: RelatedEdge, b: RelatedEdge): number {
  return (
    (b.confidence ?? -1) - (a.confidence ?? -1) ||
    b.similarity - a.similarity ||
    (a.dst_path < b.dst_path ? -1 : a.dst_path > b.dst_path ? 1 : 0) ||
    (a.src_path < b.src_path ? -1 : a.src_path > b.src_path ? 1 : 0)
  );
}
