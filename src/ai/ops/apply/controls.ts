import { type Static, Type } from "@sinclair/typebox";
import { IndxError } from "../../../core/errors.ts";
import { INPUT_LIMITS } from "../../../ops/schemas.ts";
import { DryRun } from "../../../writes/schemas.ts";

/** Notes one if_match map may name: as many as one scope may. */
const MAX_IF_MATCH = 500;

/**
 * The input fields of an AI operation that may write its suggestions (docs/decisions.md, "AI
 * apply"): suggest-only unless `apply`, and then every note written through the write pipeline.
 */
export const ApplyControls = {
  apply: Type.Optional(
    Type.Boolean({
      default: false,
      description: "Write the suggestions (vault:write); default: suggest only.",
    }),
  ),
  if_match: Type.Optional(
    Type.Record(Type.String({ maxLength: INPUT_LIMITS.pathChars }), Type.String({ minLength: 1, maxLength: 64 }), {
      maxProperties: MAX_IF_MATCH,
      description: "path → etag: write a note only at that version.",
    }),
  ),
  if_match_mode: Type.Optional(
    Type.Union([Type.Literal("stop"), Type.Literal("skip")], {
      default: "stop",
      description: "On an if_match mismatch: stop, or skip the note.",
    }),
  ),
  // The write operations' own dry_run, with its wording: one meaning, described once in the MCP instructions.
  dry_run: Type.Optional(DryRun),
};

/** The fields only a write uses: a caller without vault:write is not shown them (docs/decisions.md, "AI apply"). */
export const APPLY_FIELDS = ["apply", "if_match", "if_match_mode", "dry_run"] as const;

const ApplyInput = Type.Object(ApplyControls);
export type ApplyInput = Static<typeof ApplyInput>;

/** Whether this input writes notes: apply without a dry run. */
export const writesNotes = (input: ApplyInput): boolean => input.apply === true && input.dry_run !== true;

/**
 * An if_match naming a note the call does not read is refused before any model call: a mistyped
 * path would otherwise leave the note it meant unguarded.
 */
export function checkIfMatch(input: ApplyInput, paths: readonly string[]): void {
  const known = new Set(paths);
  const unknown = Object.keys(input.if_match ?? {}).filter((p) => !known.has(p));
  if (unknown.length)
    throw new IndxError("validation_failed", `if_match names notes outside the scope the AI may read: ${unknown.slice(0, 5).join(", ")}.`, {
      field: "if_match",
      paths: unknown.slice(0, 50),
    });
}

/**
 * What the AI operations that write notes (ai_tag, ai_metadata, ai_extract) declare alike: a read
 * that writes when asked to apply, through the write pipeline, with the errors that can bring.
 */
export const WRITES_NOTES = {
  errors: [
    "not_found",
    "patch_target_not_found",
    "encoding_unsupported",
    "idempotency_key_reused",
    "etag_mismatch",
    "ai_grounding_failed",
    "ai_apply_conflict",
    "path_invalid",
  ],
  scope: "vault:read",
  safe: false,
  destructive: true,
  ai: { needs: "chat" },
  writes: { when: writesNotes, fields: APPLY_FIELDS },
} as const;
