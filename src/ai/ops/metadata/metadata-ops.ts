import { type Static, Type } from "@sinclair/typebox";
import type { OpContext } from "../../../ops/context.ts";
import { defineOp } from "../../../ops/define.ts";
import { type Warning, Warning as WarningSchema } from "../../../ops/schemas.ts";
import { readNote } from "../../../vault/read.ts";
import { uniqueCitations, verifyCitations } from "../../citations.ts";
import { modelSession, runAi } from "../../invocation.ts";
import { renderPassages } from "../../passages.ts";
import { GROUNDING_RULES } from "../../prompts.ts";
import { AiScope } from "../../scope.ts";
import { groundedRationale, rationalesDropped } from "../../segments.ts";
import type { ModelSession } from "../../session.ts";
import { ApplyControls, WRITES_NOTES } from "../apply/controls.ts";
import { frontmatterOf } from "../apply/plan.ts";
import { SettledOutputs, settleInto } from "../apply/settle.ts";
import type { AiOpName } from "../catalogue.ts";
import { AiUsageSchema, CallControls, Citations, Language, ScopeResolved } from "../common.ts";
import { pinned, streamCitations, uniqueWarnings } from "../grounded.ts";
import { forEachNote, type NoteSource, perNoteSources, perNoteTotals } from "../per-note.ts";
import { metadataPlanner } from "./apply.ts";
import { checkFieldSpecs, FieldSpec, fieldInstructions, METADATA_PROMPT_VERSION, MetadataReplyAccepted, metadataReply, validateValue } from "./fields.ts";

/** Notes one call may fill: each is one model request. */
const MAX_NOTES = 1_000;

export const METADATA_SYSTEM = `You fill in frontmatter fields for one of a person's notes. ${GROUNDING_RULES} For each field give the value the note supports, in the field's type, or null when the note does not say. Dates are YYYY-MM-DD and date-times YYYY-MM-DDTHH:mm:ssZ; never turn relative words such as "yesterday" into a date. Give each value a confidence from 0 to 1 and a one-line rationale.`;

const Input = Type.Object(
  {
    scope: AiScope,
    fields: Type.Array(FieldSpec, { minItems: 1, maxItems: 30, description: "Keys to fill, with types." }),
    apply_mode: Type.Optional(
      Type.Union([Type.Literal("set_missing"), Type.Literal("overwrite"), Type.Literal("merge")], {
        default: "set_missing",
        description: "set_missing: empty keys only; merge: union lists.",
      }),
    ),
    ...ApplyControls,
    language: Language,
    cite: Type.Optional(Type.Boolean({ default: true, description: "Keep only cited values." })),
    ...CallControls,
  },
  { additionalProperties: false },
);
type Input = Static<typeof Input>;

const FieldResult = Type.Object({
  value: Type.Unknown({ description: "Validated against the field; null when not found or dropped." }),
  confidence: Type.Number(),
  rationale: Type.Optional(Type.String()),
  existing: Type.Optional(Type.Unknown({ description: "The note's current value." })),
  problem: Type.Optional(Type.Union([Type.Literal("invalid"), Type.Literal("ungrounded")], { description: "Why a value the model gave was dropped." })),
  evidence: Citations,
});

const MetadataResult = Type.Object({
  path: Type.String(),
  etag: Type.String({ description: "The version the values were read from: pass it as if_match[path] to apply exactly what you reviewed." }),
  fields: Type.Record(Type.String(), FieldResult),
});
type MetadataResult = Static<typeof MetadataResult>;

const Output = Type.Object({
  results: Type.Array(MetadataResult),
  applied: Type.Optional(
    Type.Array(
      Type.Object({
        path: Type.String(),
        etag: Type.String({ description: "The note's new etag." }),
        fields_set: Type.Array(Type.String()),
        fields_skipped: Type.Array(
          Type.Object({ key: Type.String(), reason: Type.Union([Type.Literal("existing_under_set_missing"), Type.Literal("validation_failed")]) }),
        ),
      }),
    ),
  ),
  ...SettledOutputs,
  scope_resolved: ScopeResolved,
  citations: Citations,
  usage: AiUsageSchema,
  warnings: Type.Array(WarningSchema),
});
type Output = Static<typeof Output>;

export const aiMetadata = defineOp({
  name: "ai_metadata",
  title: "Fill typed frontmatter",
  description: "Suggest (or apply) typed property values for notes.",
  ...WRITES_NOTES,
  input: Input,
  output: Output,
  async run(ctx, input): Promise<Output> {
    checkFieldSpecs(input.fields);
    const instructions = fieldInstructions(input.fields, input.language);
    const read = await perNoteSources(ctx, "ai_metadata", input, MAX_NOTES, [METADATA_SYSTEM, instructions]);
    return runAi({
      op: "metadata" satisfies AiOpName,
      ctx,
      input,
      scope: pinned(read.passages),
      promptVersion: METADATA_PROMPT_VERSION,
      usesModel: read.sources.length > 0,
      async produce(session) {
        const perNote = await forEachNote(read.sources, (source) => fillFields(ctx, modelSession(session), source, input, instructions), read.warnings);
        const results = perNote.map((n) => n.result);
        const citations = uniqueCitations(results.flatMap((r) => Object.values(r.fields).flatMap((f) => f.evidence)));
        streamCitations(ctx, citations);
        return { results, citations, ...perNoteTotals(read, perNote) };
      },
      async finish(result, written) {
        const mode = input.apply_mode ?? "set_missing";
        const planners = result.results.map((r) => metadataPlanner(r, input.fields, mode));
        return settleInto(ctx, "ai_metadata", input, planners, written, result);
      },
    });
  },
  summary: (o) => {
    const filled = o.results.reduce((n, r) => n + Object.values(r.fields).filter((f) => f.value !== null).length, 0);
    const done = o.applied ? `; applied to ${o.applied.length}` : o.planned ? `; would change ${o.planned.length}` : "";
    return `${filled} value${filled === 1 ? "" : "s"} found in ${o.results.length} note${o.results.length === 1 ? "" : "s"}${done}`;
  },
});

/**
 * One note's fields: one model request, then each value validated on its own (metadata_invalid),
 * backed by verified evidence (else dropped, under cite), defaulted or reported missing.
 */
async function fillFields(ctx: OpContext, session: ModelSession, source: NoteSource, input: Input, instructions: string) {
  const reply = await session.jsonAccepting(
    {
      system: METADATA_SYSTEM,
      messages: [{ role: "user", content: `${renderPassages(source.passages)}\n\n${instructions}` }],
      schema: metadataReply(input.fields),
    },
    MetadataReplyAccepted,
  );
  const byId = new Map(source.passages.map((p) => [p.id, p]));
  const path = source.path;
  const existing = currentFrontmatter(ctx, path);
  const warnings: Warning[] = [];
  const fields: MetadataResult["fields"] = {};
  for (const spec of input.fields) {
    const given = reply.fields[spec.key];
    const confidence = Math.min(1, Math.max(0, given?.confidence ?? 0));
    const base = {
      confidence,
      ...(existing && Object.hasOwn(existing, spec.key) ? { existing: existing[spec.key] } : {}),
    };
    let value: unknown = given?.value ?? null;
    let problem: "invalid" | "ungrounded" | undefined;
    let evidence: MetadataResult["fields"][string]["evidence"] = [];
    if (value !== null) {
      const checked = validateValue(spec, value);
      if ("reason" in checked) {
        warnings.push({ code: "metadata_invalid", path, message: `${path}: ${spec.key} dropped: ${checked.reason}.` });
        [value, problem] = [null, "invalid"];
      } else {
        const verified = await verifyCitations(ctx, byId, given?.citations ?? []);
        warnings.push(...verified.warnings);
        evidence = uniqueCitations(verified.citations);
        if (evidence.length === 0 && input.cite !== false) {
          warnings.push({ code: "ungrounded_dropped", path, message: `${path}: ${spec.key} dropped: no verified citation.` });
          [value, problem] = [null, "ungrounded"];
        } else value = checked.value;
      }
    }
    const rationale = value === null ? undefined : groundedRationale(given?.rationale, evidence, byId.values(), input.language !== undefined);
    if (value !== null && !rationale && given?.rationale?.trim()) warnings.push(...rationalesDropped(1, path));
    if (value === null && spec.default !== undefined && problem === undefined) value = spec.default;
    if (value === null && spec.required)
      warnings.push({ code: "metadata_missing", path, message: `${path}: no value found for the required field ${spec.key}.` });
    fields[spec.key] = { value, ...base, ...(rationale ? { rationale } : {}), ...(problem ? { problem } : {}), evidence };
  }
  return { result: { path, etag: source.etag, fields }, warnings: uniqueWarnings(warnings) };
}

/** The note's frontmatter as it is now (for `existing`); null when it cannot be read as data. */
function currentFrontmatter(ctx: OpContext, path: string): Record<string, unknown> | null {
  try {
    return frontmatterOf(path, readNote(ctx.vault, path, { allowLarge: true }).text);
  } catch {
    return null;
  }
}
