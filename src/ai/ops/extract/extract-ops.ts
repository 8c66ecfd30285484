import { type Static, Type } from "@sinclair/typebox";
import { IndxError } from "../../../core/errors.ts";
import type { OpContext } from "../../../ops/context.ts";
import { defineOp } from "../../../ops/define.ts";
import { INPUT_LIMITS, Warning as WarningSchema } from "../../../ops/schemas.ts";
import { type Dropped, uniqueCitations } from "../../citations.ts";
import { modelSession, runAi } from "../../invocation.ts";
import { AiScope } from "../../scope.ts";
import { ApplyControls, WRITES_NOTES } from "../apply/controls.ts";
import { SettledOutputs, settleInto } from "../apply/settle.ts";
import type { AiOpName } from "../catalogue.ts";
import { AiUsageSchema, CallControls, Citations, Language, ScopeResolved } from "../common.ts";
import { groundingFailed, pinned, streamCitations } from "../grounded.ts";
import { forEachNote, perNoteSources, perNoteTotals } from "../per-note.ts";
import { extractPlanner } from "./apply.ts";
import { CallerSchema } from "./caller-schema.ts";
import { EXTRACT_PROMPT_VERSION, EXTRACT_SYSTEM, extractInstructions } from "./prompt.ts";
import { type ExtractRecord, extractRecord } from "./record.ts";

/** Notes one call may extract from: each is one model request carrying the whole schema. */
const MAX_NOTES = 500;

/** A top-level frontmatter key on one line, without surrounding spaces (YAML would not keep them). */
const FrontmatterKey = Type.String({
  minLength: 1,
  maxLength: INPUT_LIMITS.nameChars,
  pattern: "^[^\\s\\u0000-\\u001f\\u007f](?:[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f])?$",
  description: "Frontmatter key.",
});

const Input = Type.Object(
  {
    scope: AiScope,
    // Its size, depth and keywords are checked by CallerSchema (ai_schema_invalid with every problem).
    schema: Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), {
      maxProperties: 32,
      description: "JSON Schema (2020-12 subset) of one note's record.",
    }),
    schema_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "Schema label." })),
    destination: Type.Optional(
      Type.Union([Type.Literal("json"), Type.Literal("frontmatter")], {
        default: "json",
        description: "frontmatter: also propose (or apply) it as destination_key.",
      }),
    ),
    destination_key: Type.Optional(FrontmatterKey),
    apply_mode: Type.Optional(
      Type.Union([Type.Literal("set_missing"), Type.Literal("overwrite"), Type.Literal("merge")], {
        default: "set_missing",
        description: "set_missing: empty keys only; merge: add list items.",
      }),
    ),
    ...ApplyControls,
    language: Language,
    cite: Type.Optional(Type.Boolean({ default: true, description: "Drop uncited data." })),
    ...CallControls,
  },
  { additionalProperties: false },
);
type Input = Static<typeof Input>;

const ExtractResult = Type.Object({
  path: Type.String(),
  etag: Type.String({ description: "The version the data was extracted from: pass it as if_match[path] to apply exactly what you reviewed." }),
  data: Type.Unknown({ description: "Valid against the schema." }),
  confidence: Type.Number({ minimum: 0, maximum: 1 }),
  citations: Citations,
});

const Output = Type.Object({
  results: Type.Array(ExtractResult, { description: "One per note whose data passed the schema and its citations; path order." }),
  applied: Type.Optional(
    Type.Array(Type.Object({ path: Type.String(), etag: Type.String({ description: "The note's new etag." }), key: Type.String() }), {
      description: "apply: the notes written.",
    }),
  ),
  ...SettledOutputs,
  scope_resolved: ScopeResolved,
  usage: AiUsageSchema,
  warnings: Type.Array(WarningSchema),
});
type Output = Static<typeof Output>;

export const aiExtract = defineOp({
  name: "ai_extract",
  title: "Extract structured data",
  description: "Cited structured data from each note, to your JSON Schema.",
  ...WRITES_NOTES,
  errors: [...WRITES_NOTES.errors, "ai_schema_invalid"],
  input: Input,
  output: Output,
  async run(ctx, input): Promise<Output> {
    const schema = CallerSchema.check(input.schema);
    try {
      return await extract(ctx, input, schema);
    } finally {
      schema.dispose();
    }
  },
  summary: (o) => {
    const done = o.applied ? `; written to ${o.applied.length}` : o.planned ? `; would change ${o.planned.length}` : "";
    return `Extracted data from ${o.results.length} of ${o.scope_resolved.paths.length} note${o.scope_resolved.paths.length === 1 ? "" : "s"}${done}`;
  },
});

async function extract(ctx: OpContext, input: Input, schema: CallerSchema): Promise<Output> {
  const key = destinationKey(input);
  const instructions = extractInstructions(schema, input.language);
  const read = await perNoteSources(ctx, "ai_extract", input, MAX_NOTES, [EXTRACT_SYSTEM, instructions]);
  const cite = input.cite !== false;
  return runAi({
    op: "extract" satisfies AiOpName,
    ctx,
    // Where the data goes does not change what is extracted: a json preview and the apply share one generation.
    input: { ...input, destination: undefined, destination_key: undefined },
    scope: pinned(read.passages),
    promptVersion: EXTRACT_PROMPT_VERSION,
    usesModel: read.sources.length > 0,
    async produce(session) {
      const perNote = await forEachNote(
        read.sources,
        (source) => extractRecord(ctx, modelSession(session), source, { schema, instructions, cite }),
        read.warnings,
      );
      const results = perNote.flatMap((n) => (n.record ? [n.record] : []));
      const ungrounded: Dropped[] = perNote.flatMap((n) => (n.ungrounded ? n.dropped : []));
      if (cite && results.length === 0 && perNote.some((n) => n.ungrounded)) throw groundingFailed(ungrounded);
      streamCitations(ctx, uniqueCitations(results.flatMap((r) => r.citations)));
      return { results, ...perNoteTotals(read, perNote) };
    },
    ...(key === null
      ? {}
      : {
          async finish(result: Output, written: string[]) {
            const mode = input.apply_mode ?? "set_missing";
            const planners = result.results.map((r: ExtractRecord) => extractPlanner(r, key, mode));
            return settleInto(ctx, "ai_extract", input, planners, written, result);
          },
        }),
  });
}

/** The frontmatter key the data goes to, or null for destination json; a contradictory input is a 400 before any model call. */
function destinationKey(input: Input): string | null {
  const key = input.destination_key;
  if (input.destination === "frontmatter") {
    if (key === undefined)
      throw new IndxError("validation_failed", "destination frontmatter needs destination_key: the frontmatter key to write the data to.", {
        field: "destination_key",
      });
    return key;
  }
  if (key !== undefined) throw new IndxError("validation_failed", 'destination_key is used with destination "frontmatter" only.', { field: "destination" });
  if (input.apply === true)
    throw new IndxError("validation_failed", 'apply writes to frontmatter: set destination "frontmatter" and destination_key.', { field: "destination" });
  return null;
}
