import { type Static, Type } from "@sinclair/typebox";
import type { OpContext } from "../../../ops/context.ts";
import { defineOp } from "../../../ops/define.ts";
import { INPUT_LIMITS, type Warning, Warning as WarningSchema } from "../../../ops/schemas.ts";
import { uniqueCitations, verifyCitations } from "../../citations.ts";
import { modelSession, runAi } from "../../invocation.ts";
import { renderPassages } from "../../passages.ts";
import { AiScope } from "../../scope.ts";
import { groundedRationale, rationalesDropped } from "../../segments.ts";
import type { ModelSession } from "../../session.ts";
import { ApplyControls, WRITES_NOTES } from "../apply/controls.ts";
import { SettledOutputs, settleInto } from "../apply/settle.ts";
import type { AiOpName } from "../catalogue.ts";
import { AiUsageSchema, CallControls, Citations, Language, ScopeResolved } from "../common.ts";
import { pinned, streamCitations, uniqueWarnings } from "../grounded.ts";
import { forEachNote, type NoteSource, perNoteSources, perNoteTotals } from "../per-note.ts";
import { tagPlanner } from "./apply.ts";
import { TAG_PROMPT_VERSION, TAG_SYSTEM, TagReplyAccepted, tagInstructions, tagReply } from "./prompt.ts";
import { TagVocabulary, tagInvalid } from "./vocabulary.ts";

/** Notes one call may tag: each is one model request. */
const MAX_NOTES = 1_000;

const TagName = Type.String({ minLength: 1, maxLength: INPUT_LIMITS.nameChars });

const Vocabulary = Type.Object(
  {
    use_existing: Type.Optional(Type.Boolean({ default: true, description: "Prefer the vault's common tags." })),
    allow_new: Type.Optional(Type.Boolean({ default: true, description: "false: only existing tags." })),
    candidates: Type.Optional(Type.Array(TagName, { minItems: 1, maxItems: 200, description: "Only these tags." })),
    forbid: Type.Optional(Type.Array(TagName, { maxItems: 200, description: "Never these tags." })),
    namespace: Type.Optional({ ...TagName, description: "Only tags under this one." }),
    max_per_note: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 5 })),
    min_confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 0.6 })),
  },
  { additionalProperties: false, description: "Which tags may be suggested." },
);

const Input = Type.Object(
  {
    scope: AiScope,
    vocabulary: Type.Optional(Vocabulary),
    apply_mode: Type.Optional(
      Type.Union([Type.Literal("merge"), Type.Literal("replace")], {
        default: "merge",
        description: "merge adds to frontmatter tags; replace sets them.",
      }),
    ),
    ...ApplyControls,
    language: Language,
    cite: Type.Optional(Type.Boolean({ default: true, description: "Keep only cited tags." })),
    ...CallControls,
  },
  { additionalProperties: false },
);
type Input = Static<typeof Input>;

const SuggestedTag = Type.Object({
  tag: Type.String({ description: "Without '#', in the vault's spelling when it has the tag." }),
  confidence: Type.Number(),
  is_new: Type.Boolean({ description: "No note in the vault has this tag yet." }),
  rationale: Type.Optional(Type.String()),
  evidence: Citations,
});

const TagSuggestion = Type.Object({
  path: Type.String(),
  etag: Type.String({ description: "The version the suggestions were made from: pass it as if_match[path] to apply exactly what you reviewed." }),
  tags: Type.Array(SuggestedTag),
});
type TagSuggestion = Static<typeof TagSuggestion>;

const Output = Type.Object({
  suggestions: Type.Array(TagSuggestion),
  applied: Type.Optional(
    Type.Array(
      Type.Object({
        path: Type.String(),
        etag: Type.String({ description: "The note's new etag." }),
        tags_added: Type.Array(Type.String()),
        tags_removed: Type.Array(Type.String({ description: "replace mode only." })),
      }),
    ),
  ),
  ...SettledOutputs,
  scope_resolved: ScopeResolved,
  vocabulary: Type.Object(
    { existing: Type.Array(Type.String()), new: Type.Array(Type.String()) },
    { description: "The suggested tags the vault has, and those it does not." },
  ),
  citations: Citations,
  usage: AiUsageSchema,
  warnings: Type.Array(WarningSchema),
});
type Output = Static<typeof Output>;

export const aiTag = defineOp({
  name: "ai_tag",
  title: "Suggest tags",
  description: "Suggest (or apply) tags for notes.",
  ...WRITES_NOTES,
  input: Input,
  output: Output,
  async run(ctx, input): Promise<Output> {
    const vocabulary = new TagVocabulary(ctx, input.vocabulary ?? {});
    const ask = {
      existing: vocabulary.promptTags(),
      candidates: vocabulary.candidates,
      forbid: input.vocabulary?.forbid ?? [],
      namespace: vocabulary.namespace,
      allowNew: input.vocabulary?.allow_new !== false,
      maxPerNote: input.vocabulary?.max_per_note ?? 5,
      ...(input.language ? { language: input.language } : {}),
    };
    const instructions = tagInstructions(ask);
    const read = await perNoteSources(ctx, "ai_tag", input, MAX_NOTES, [TAG_SYSTEM, instructions]);
    return runAi({
      op: "tag" satisfies AiOpName,
      ctx,
      // The vocabulary offered is part of what the model answers to.
      input: { ...input, offered: ask.existing.map((t) => t.tag) },
      scope: pinned(read.passages),
      promptVersion: TAG_PROMPT_VERSION,
      usesModel: read.sources.length > 0,
      async produce(session) {
        const perNote = await forEachNote(
          read.sources,
          (source) => suggestTags(ctx, modelSession(session), source, { vocabulary, instructions, input }),
          read.warnings,
        );
        const suggestions = perNote.map((n) => n.suggestion);
        const citations = uniqueCitations(suggestions.flatMap((s) => s.tags.flatMap((t) => t.evidence)));
        streamCitations(ctx, citations);
        const suggested = suggestions.flatMap((s) => s.tags);
        const sortedUnique = (tags: string[]) => [...new Set(tags)].sort();
        return {
          suggestions,
          vocabulary: {
            existing: sortedUnique(suggested.filter((t) => !t.is_new).map((t) => t.tag)),
            new: sortedUnique(suggested.filter((t) => t.is_new).map((t) => t.tag)),
          },
          citations,
          ...perNoteTotals(read, perNote),
        };
      },
      async finish(result, written) {
        const mode = input.apply_mode ?? "merge";
        const planners = result.suggestions.map((s) => tagPlanner({ path: s.path, etag: s.etag, tags: s.tags.map((t) => t.tag) }, mode));
        return settleInto(ctx, "ai_tag", input, planners, written, result);
      },
    });
  },
  summary: (o) => {
    const tags = o.suggestions.reduce((n, s) => n + s.tags.length, 0);
    const done = o.applied ? `; applied to ${o.applied.length}` : o.planned ? `; would change ${o.planned.length}` : "";
    return `${tags} tag${tags === 1 ? "" : "s"} suggested for ${o.suggestions.length} note${o.suggestions.length === 1 ? "" : "s"}${done}`;
  },
});

interface TagContext {
  vocabulary: TagVocabulary;
  instructions: string;
  input: Input;
}

/**
 * One note's tags: one model request, then each proposal checked on its own — the tag charset and
 * the caller's vocabulary (tag_invalid), the confidence floor (tag_below_threshold) and its
 * evidence (verified citations; without one, under cite, it is dropped).
 */
async function suggestTags(
  ctx: OpContext,
  session: ModelSession,
  source: NoteSource,
  c: TagContext,
): Promise<{ suggestion: TagSuggestion; warnings: Warning[] }> {
  const reply = await session.jsonAccepting(
    {
      system: TAG_SYSTEM,
      messages: [{ role: "user", content: `${renderPassages(source.passages)}\n\n${c.instructions}` }],
      schema: tagReply(c.vocabulary.candidates),
    },
    TagReplyAccepted,
  );
  const byId = new Map(source.passages.map((p) => [p.id, p]));
  const minConfidence = c.input.vocabulary?.min_confidence ?? 0.6;
  const invalid: string[] = [];
  const below: string[] = [];
  const warnings: Warning[] = [];
  let ungrounded = 0;
  let unsupportedRationales = 0;
  const kept = new Map<string, TagSuggestion["tags"][number]>();
  for (const proposal of reply.tags) {
    const accepted = c.vocabulary.accept(proposal.tag);
    if ("reason" in accepted) {
      invalid.push(accepted.reason);
      continue;
    }
    const confidence = Math.min(1, Math.max(0, proposal.confidence));
    if (confidence < minConfidence) {
      below.push(`${accepted.tag} (${confidence})`);
      continue;
    }
    const verified = await verifyCitations(ctx, byId, proposal.citations);
    warnings.push(...verified.warnings);
    if (verified.citations.length === 0 && c.input.cite !== false) {
      ungrounded++;
      continue;
    }
    const key = accepted.tag.toLowerCase();
    const previous = kept.get(key);
    if (previous && previous.confidence >= confidence) continue;
    const rationale = groundedRationale(proposal.rationale, verified.citations, byId.values(), c.input.language !== undefined);
    if (!rationale && proposal.rationale?.trim()) unsupportedRationales++;
    kept.set(key, {
      tag: accepted.tag,
      confidence,
      is_new: c.vocabulary.isNew(accepted.tag),
      ...(rationale ? { rationale } : {}),
      evidence: uniqueCitations(verified.citations),
    });
  }
  const path = source.path;
  if (invalid.length) warnings.push(tagInvalid(path, invalid.join("; ")));
  if (below.length)
    warnings.push({ code: "tag_below_threshold", path, message: `Dropped tags for ${path} under min_confidence ${minConfidence}: ${below.join(", ")}.` });
  if (ungrounded) warnings.push({ code: "ungrounded_dropped", path, message: `Dropped ${ungrounded} tag(s) for ${path} without a verified citation.` });
  warnings.push(...rationalesDropped(unsupportedRationales, path));
  const tags = [...kept.values()].sort((a, b) => b.confidence - a.confidence || (a.tag < b.tag ? -1 : 1)).slice(0, c.input.vocabulary?.max_per_note ?? 5);
  return { suggestion: { path, etag: source.etag, tags }, warnings: uniqueWarnings(warnings) };
}
