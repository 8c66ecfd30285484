import type { TSchema } from "@sinclair/typebox";
import { ERROR_CODES, type ErrorCode } from "../core/errors.ts";
import { errorsOf } from "../ops/define.ts";
import type { Route } from "./routes.ts";

/**
 * The error codes a route can answer with: those of HTTP itself (a token, a rate, a body), and
 * those its operation declares (Operation.errors, checked against every test's calls).
 */
export function errorCodesOf(r: Route): ErrorCode[] {
  const http: ErrorCode[] = ["unauthorized", "forbidden", "rate_limited", "internal"];
  if (r.input === "body") http.push("payload_too_large", "unsupported_media_type");
  return [...new Set<ErrorCode>([...errorsOf(r.op), ...http])];
}

/** A realistic error envelope for each status (the first code of that status a route can give). */
const EXAMPLES: Partial<Record<ErrorCode, { message: string; details?: Record<string, unknown> }>> = {
  validation_failed: {
    message: 'Invalid input for vault_search: mode must be lexical, semantic, hybrid or auto (got "fuzzy")',
    details: { errors: [{ path: "/mode", field: "mode", expected: 'must be lexical, semantic, hybrid or auto (got "fuzzy")' }] },
  },
  path_invalid: { message: "path must not leave the vault", details: { reason: "traversal" } },
  unauthorized: { message: "Missing bearer token: send Authorization: Bearer <token>." },
  forbidden: { message: "This token lacks the vault:write scope.", details: { required: "vault:write" } },
  not_found: { message: "No file at Projects/Apollo Lunch.md", details: { path: "Projects/Apollo Lunch.md" } },
  already_exists: { message: "Inbox/Idea.md already exists.", details: { path: "Inbox/Idea.md" } },
  idempotency_key_reused: { message: "This Idempotency-Key was used with another request." },
  etag_mismatch: { message: "The note changed since you read it.", details: { expected: "3a2aaf491eef675e", actual: "9c41d07be2f3a8d1" } },
  payload_too_large: { message: "Projects/Big.md is 3145728 bytes, over the 2097152-byte limit; pass allow_large to read it anyway." },
  unsupported_media_type: { message: "Send the request body as JSON (Content-Type: application/json)." },
  patch_target_not_found: { message: "Patch op 0: no heading Tasks in Projects/Alpha.md.", details: { op: 0, heading: "Tasks" } },
  parse_failed: { message: "Reference/binary.md is not a text file." },
  rate_limited: { message: "Too many requests for this token. Retry after 1 s.", details: { retry_after_s: 1 } },
  index_missing: { message: "The vault has no index yet.", details: { fix: "indx vault index" } },
  ai_unavailable: { message: "Semantic search needs an embeddings provider.", details: { fix: "set INDX_EMBEDDINGS_PROVIDER and run indx vault index" } },
  ai_provider_error: { message: "The embeddings provider answered with an error (http 500)." },
  disk_full: { message: "The disk is full; nothing was written." },
  ai_grounding_failed: {
    message: "No citation of the model's answer survived verification, so no answer is returned.",
    details: { dropped: [{ passage: "P3", reason: "quote_not_found" }] },
  },
  ai_input_too_large: { message: "The prompt needs more than ai.max_input_tokens (64000) tokens.", details: { tokens: 81234, max_input_tokens: 64000 } },
  ai_quota_exceeded: {
    message: "Today's AI spend ($5.0012) has reached ai.daily_cost_usd ($5); it resets at 00:00 UTC.",
    details: { reset_at: "2026-11-24T00:00:00.000Z", retry_after_s: 3600 },
  },
  cancelled: { message: "The call was cancelled." },
  internal: { message: "Internal error." },
};

/** Error responses for some codes, one per status, each with an example of the first code of that status. */
export function errorResponses(codes: readonly ErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CODES[code].http;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const [code] = codes;
    if (code === undefined) continue;
    out[String(status)] = {
      description: codes.join(", "),
      content: {
        "application/json": {
          schema: { $ref: "#/components/schemas/Error" },
          example: { ok: false, error: { code, ...(EXAMPLES[code] ?? { message: code }) } },
        },
      },
    };
  }
  return out;
}

/** Sample values by field name, so a generated request example reads like a real one. */
const SAMPLES: Record<string, unknown> = {
  q: "rollback runbook",
  path: "Projects/Apollo Launch.md",
  from: "Inbox/Idea.md",
  to: "Projects/Idea.md",
  id: "Projects/Apollo Launch.md",
  tag: "project/active",
  body: "# Idea\n\nWrite it down.\n",
  key: "status",
  value: "active",
  heading: "Tasks",
  markdown: "- [ ] ship it",
};

/** A request example built from an input schema: its required fields, with sample values that pass the schema. */
export function exampleOf(schema: TSchema, name = ""): unknown {
  if (name in SAMPLES && (schema.type === "string" || schema.type === undefined)) return SAMPLES[name];
  if (schema.const !== undefined) return schema.const;
  const [firstOf] = (schema.anyOf ?? []) as TSchema[];
  if (firstOf) return exampleOf(firstOf, name);
  if (schema.default !== undefined) return schema.default;
  switch (schema.type) {
    case "string":
      return "text";
    case "integer":
    case "number":
      return schema.minimum ?? 1;
    case "boolean":
      return false;
    case "array":
      return [exampleOf(schema.items as TSchema, name)];
    case "object": {
      const props: Record<string, TSchema> = schema.properties ?? {};
      return Object.fromEntries((schema.required ?? []).flatMap((k: string) => (props[k] ? [[k, exampleOf(props[k], k)]] : [])));
    }
    default:
      return null;
  }
}
