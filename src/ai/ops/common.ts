import { Type } from "@sinclair/typebox";
import { IdempotencyKey } from "../../writes/schemas.ts";
import { Citation } from "../citations.ts";

/** Schema pieces every AI operation shares (docs/contracts.md, AI runtime). */

export const AiUsageSchema = Type.Object(
  {
    input_tokens: Type.Integer(),
    output_tokens: Type.Integer(),
    cost_usd: Type.Number({ description: "Best-effort cost from the model's price; 0 for local models and cache hits." }),
  },
  { description: "What the call cost, summed over every model request it made." },
);

export const Citations = Type.Array(Citation, { description: "Verified sources: each quote was found in the cited note at the cited version." });

export const ScopeResolved = Type.Object({
  paths: Type.Array(Type.String(), { description: "The notes the call read (after the AI allow/deny globs)." }),
  total_tokens: Type.Integer({ description: "Estimated tokens of those notes' text." }),
});

export const Style = Type.Union([Type.Literal("neutral"), Type.Literal("bullets"), Type.Literal("executive"), Type.Literal("technical")], {
  default: "neutral",
  description: "Prose style.",
});

/** Knobs every AI call takes. */
export const CallControls = {
  max_tokens: Type.Optional(Type.Integer({ minimum: 16, maximum: 32_768, description: "Output token cap." })),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1, default: 0, description: "For repeatable output." })),
  cache: Type.Optional(Type.Boolean({ default: true, description: "false: skip the AI cache." })),
  cache_ttl_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 30 * 86_400, description: "Cache lifetime." })),
  idempotency_key: Type.Optional(IdempotencyKey),
  stream: Type.Optional(Type.Boolean({ default: false, description: "Stream partial output." })),
};

export const Language = Type.Optional(Type.String({ minLength: 2, maxLength: 35, description: "Output language (BCP 47); default: the notes'." }));

/** What the AI operations that only read and answer with citations (ai_ask, ai_summarize, ai_relate) declare alike. */
export const GROUNDED_READ = {
  errors: ["idempotency_key_reused", "ai_grounding_failed", "not_found", "path_invalid"],
  scope: "vault:read",
  safe: true,
} as const;
