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
  query_too_costly: { http: 422, exit: 2 },
  encoding_unsupported: { http: 422, exit: 2 },
  ai_grounding_failed: { http: 422, exit: 2 },
  ai_input_too_large: { http: 422, exit: 2 },
  ai_schema_invalid: { http: 422, exit: 2 },
  ai_denied_content: { http: 422, exit: 2 },
  ai_price_unknown: { http: 422, exit: 2 },
  rate_limited: { http: 429, exit: 6 },
  index_missing: { http: 503, exit: 6 },
  index_incompatible: { http: 503, exit: 6 },
  index_corrupt: { http: 503, exit: 6 },
  data_dir_unusable: { http: 503, exit: 6 },
  vault_missing: { http: 503, exit: 6 },
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
  if (isSqliteCorruption(err)) return indexCorruptError();
  return new IndxError("internal", "An internal error occurred. Re-run with INDX_DEBUG=1 for details.");
}

/** The index cannot answer until a build: `serve` and `indx mcp` build it on start; a write that landed says so in a warning. */
export const INDEX_NEEDS_BUILD: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["index_missing", "index_incompatible", "index_corrupt"]);

/** What a damaged index is fixed by: the rebuild sets the damaged file aside (docs/decisions.md, "A damaged index"). */
export const CORRUPT_INDEX_FIX = "indx vault index --rebuild";

/** The index file cannot be read as a database: typed, with the command that fixes it. */
export function indexCorruptError(reason = "the index file is damaged"): IndxError {
  return new IndxError("index_corrupt", `The index cannot be used: ${reason}. Run \`${CORRUPT_INDEX_FIX}\` to set it aside and build it again.`, {
    reason,
    fix: CORRUPT_INDEX_FIX,
  });
}

/**
 * SQLite saying a file is damaged: SQLITE_CORRUPT (and its extended codes, FTS5's among them),
 * SQLITE_NOTADB, or an FTS5 table whose own config rows are damaged ("vtable constructor failed").
 * Only derived files are read through bun:sqlite in a way that can meet this, chiefly index.db.
 */
export function isSqliteCorruption(err: unknown): boolean {
  if (!(err instanceof Error) || err.name !== "SQLiteError") return false;
  const code = String((err as { code?: unknown }).code ?? "");
  return code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB" || /malformed|vtable constructor failed|not a database/.test(err.message);
}
