/**
 * The one error type every operation throws. Surfaces map `code` to their own transport:
 * an HTTP status, a CLI exit code, an MCP isError result (docs/contracts.md, Errors).
 * Messages and details must never carry note text, queries, secrets or absolute paths.
 */
export const ERROR_CODES = {
  validation_failed: { http: 400, exit: 2 },
  path_invalid: { http: 400, exit: 2 },
  unauthorized: { http: 401, exit: 5 },
  forbidden: { http: 403, exit: 5 },
  not_found: { http: 404, exit: 3 },
  already_exists: { http: 409, exit: 4 },
  idempotency_key_reused: { http: 409, exit: 4 },
  ai_apply_conflict: { http: 409, exit: 4 },
  etag_mismatch: { http: 412, exit: 4 },
  payload_too_large: { http: 413, exit: 2 },
  unsupported_media_type: { http: 415, exit: 2 },
  patch_target_not_found: { http: 422, exit: 2 },
  patch_target_ambiguous: { http: 422, exit: 2 },
  parse_failed: { http: 422, exit: 2 },
  encoding_unsupported: { http: 422, exit: 2 },
  ai_grounding_failed: { http: 422, exit: 2 },
  ai_input_too_large: { http: 422, exit: 2 },
  ai_schema_invalid: { http: 422, exit: 2 },
  ai_denied_content: { http: 422, exit: 2 },
  ai_price_unknown: { http: 422, exit: 2 },
  rate_limited: { http: 429, exit: 6 },
  index_missing: { http: 503, exit: 6 },
  index_incompatible: { http: 503, exit: 6 },
  ai_unavailable: { http: 503, exit: 6 },
  ai_provider_error: { http: 502, exit: 8 },
  // Exit 7 is the AI quota's (the AI runtime's CLI contract); the disk is 9 (docs/decisions.md, "Exit codes").
  ai_quota_exceeded: { http: 429, exit: 7 },
  disk_full: { http: 507, exit: 9 },
  // 499 "client closed request" (nginx); 130 as for a command stopped by Ctrl-C.
  cancelled: { http: 499, exit: 130 },
  internal: { http: 500, exit: 1 },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class IndxError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "IndxError";
    this.code = code;
    this.details = details;
  }

  get httpStatus(): number {
    return ERROR_CODES[this.code].http;
  }

  get exitCode(): number {
    return ERROR_CODES[this.code].exit;
  }

  toJSON(): { code: ErrorCode; message: string; details?: Record<string, unknown> } {
    return this.details === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, details: this.details };
  }
}

/**
 * Anything that is not an IndxError is our fault. Its message may hold a path or worse,
 * so it is replaced by a fixed sentence; the original goes only to a debug log if enabled.
 */
export function toIndxError(err: unknown): IndxError {
  if (err instanceof IndxError) return err;
  return new IndxError("internal", "An internal error occurred. Re-run with INDX_DEBUG=1 for details.");
}
