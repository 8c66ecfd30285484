import { Type } from "@sinclair/typebox";
import { ModelCitation } from "../../citations.ts";
import { GROUNDING_RULES } from "../../prompts.ts";
import type { CallerSchema } from "./caller-schema.ts";

/** Bumped whenever the extract prompt or reply shape changes, so an old cached reply is never served. */
export const EXTRACT_PROMPT_VERSION = "2026-11-24.extract.1";

export const EXTRACT_SYSTEM = `You extract structured data from one of a person's notes into a JSON Schema the caller gives. ${GROUNDING_RULES} Put the extracted value in data, exactly in the caller's schema; take only what the passages state, never invent values (an empty list when the note holds nothing of the kind). Give a confidence from 0 to 1 and citations of the passages the data comes from.`;

/**
 * The reply the model is asked for: the caller's schema as `data`, beside a confidence and the
 * citations. The caller's $defs move to the reply's root, where its `#/$defs/…` references point.
 */
export function extractReply(schema: CallerSchema) {
  const defs = schema.defs;
  return Type.Object(
    {
      data: Type.Unsafe<unknown>(schema.body),
      confidence: Type.Number({ minimum: 0, maximum: 1 }),
      citations: Type.Array(ModelCitation, { maxItems: 20 }),
    },
    defs ? { $defs: defs } : {},
  );
}

/** The reply as it is accepted: `data` is then checked against the caller's schema, and a record that fails dropped with a warning. */
export const ExtractReplyAccepted = Type.Object({
  data: Type.Unknown(),
  confidence: Type.Number(),
  citations: Type.Array(ModelCitation, { maxItems: 50 }),
});

/** The instructions after the passages: the schema itself, for a provider that does not enforce it. */
export function extractInstructions(schema: CallerSchema, language: string | undefined): string {
  return [`The JSON Schema of data: ${JSON.stringify(schema.schema)}`, language ? `Write extracted text in the language with BCP 47 tag "${language}".` : ""]
    .filter(Boolean)
    .join("\n");
}
