import type { Static, TObject } from "@sinclair/typebox";
import type { ErrorCode } from "../core/errors.ts";
import type { OpContext } from "./context.ts";
import { PATH_MARK } from "./schemas.ts";

export type Scope = "vault:read" | "vault:write" | "vault:admin";

/**
 * The model an AI operation needs. `either`: a chat model or embeddings, each serving part of it
 * (ai_relate classifies with chat, finds neighbours with vectors, and degrades without one);
 * `any`: it answers with either role, or none (ai_status).
 */
export type AiRole = "chat" | "embeddings" | "either" | "any";

/**
 * One row of the mapping table (docs/contracts.md, Operations): written once, typed by TypeBox, and
 * translated by the CLI, REST and MCP surfaces. Nothing about a transport belongs here.
 */
/**
 * `C` is the part of the context the operation uses (OpContext by default): an operation that
 * names a narrower one (say `{ ai: … }`) can be run by a unit test on fakes (docs/architecture.md).
 */
export interface Operation<I extends TObject = TObject, O extends TObject = TObject, C = OpContext, N extends string = string> {
  /** Typed as its literal, so lists of operations (src/ai/ops/catalogue.ts) derive name unions from it. */
  name: N;
  title: string;
  /** Teaches a caller (often an agent) when to use this operation. */
  description: string;
  scope: Scope;
  /** May overwrite or remove what a user wrote (MCP destructiveHint): every write to notes. */
  destructive?: boolean;
  /** A write whose `dry_run: true` only plans: then it needs vault:read alone. */
  dryRunNeedsRead?: boolean;
  /** No side effects: safe to retry, to cache briefly and to serve over GET. */
  safe: boolean;
  /**
   * An AI operation (docs/contracts.md, AI runtime): it needs a model role, so it is advertised
   * (MCP tools/list, OpenAPI) only when that role is configured; it runs on the request thread
   * (it waits on the network, may stream, and shares the AI cache); and, although a read, it
   * honours idempotency keys, so a retried call does not pay for a second generation.
   */
  ai?: {
    needs: AiRole;
    /** Some inputs need no model (ai_toc of a note without descriptions): invoke asks for one only when this says so. */
    when?(input: Static<I>): boolean;
  };
  /**
   * The error codes this operation can return (docs/contracts.md, Errors), besides those every
   * operation can (EVERY_OPERATION_ERRORS) and, unless `needsIndex` is false, index_missing,
   * index_incompatible and index_corrupt. OpenAPI lists them per route; under the tests, invoke fails a call that
   * returns a code not declared here (test/support/preload.ts).
   */
  errors: readonly ErrorCode[];
  /** False for the few operations that answer without an index (they report or build it). */
  needsIndex?: false;
  /**
   * An operation that writes for some inputs only (an AI operation's apply): such an input needs
   * vault:write besides `scope`, checked by invokeOp on every surface, and a caller without
   * vault:write is shown the operation without `fields` (MCP tools/list, OpenAPI).
   */
  writes?: { when(input: Static<I>): boolean; fields: readonly string[] };
  input: I;
  output: O;
  /** `run` and `summary` stay methods (not function-typed properties): AnyOperation relies on it. */
  run(ctx: C, input: Static<I>): Promise<Static<O>> | Static<O>;
  /** One short deterministic line describing a result (MCP text content, CLI status). */
  summary(output: Static<O>, input: Static<I>): string;
}

/**
 * Any operation, as the registry and the surfaces hold them. `run` and `summary` are methods, so
 * TypeScript compares their parameters bivariantly and every typed operation fits here without
 * `any`. That is sound only because nothing calls them with an unchecked value: invokeOp()
 * validates the input against `op.input` first (docs/decisions.md, "Typed operation boundary").
 */
export type AnyOperation = Operation<TObject, TObject>;

/**
 * Codes any operation can return: its input refused, its scope refused, a fault of indx's own,
 * and what invoke says of every call: the vault folder gone, the data folder full or unwritable
 * (docs/decisions.md, "A vault folder that goes away", "A full or read-only data folder").
 */
export const EVERY_OPERATION_ERRORS: readonly ErrorCode[] = ["validation_failed", "forbidden", "internal", "vault_missing", "disk_full", "data_dir_unusable"];

/**
 * Codes any operation with side effects can end with: its turn in the vault's queue of writers
 * not come within the wait limit, or its caller gone before it came (src/writes/queue.ts).
 */
export const WRITE_ERRORS: readonly ErrorCode[] = ["rate_limited", "cancelled"];

/** Codes any call to a model can end with: the provider down, failing, limiting or too small, the cap reached or the price unknown, the deny wall (docs/contracts.md), the call cancelled. */
export const MODEL_CALL_ERRORS: readonly ErrorCode[] = [
  "ai_unavailable",
  "ai_provider_error",
  "ai_quota_exceeded",
  "ai_price_unknown",
  "ai_denied_content",
  "ai_input_too_large",
  "rate_limited",
  "cancelled",
];

/** Every code an operation can return: what it declares, what every operation can, and what a model call can. */
export function errorsOf(op: Pick<AnyOperation, "errors" | "needsIndex" | "ai" | "safe" | "input">): ErrorCode[] {
  const index: ErrorCode[] = op.needsIndex === false ? [] : ["index_missing", "index_incompatible", "index_corrupt"];
  const model: readonly ErrorCode[] = op.ai && op.ai.needs !== "any" ? MODEL_CALL_ERRORS : [];
  // A path a folder grant hides is not_found to its caller (src/ops/grant-check.ts).
  const write: readonly ErrorCode[] = op.safe ? [] : WRITE_ERRORS;
  const paths: ErrorCode[] = takesPaths(op.input) ? ["not_found"] : [];
  return [...new Set([...EVERY_OPERATION_ERRORS, ...index, ...model, ...write, ...paths, ...op.errors])];
}

const pathTaking = new WeakMap<TObject, boolean>();
/** Does the input name a vault file (a field marked PATH_MARK, src/ops/schemas.ts)? */
function takesPaths(input: TObject): boolean {
  let known = pathTaking.get(input);
  if (known === undefined) {
    known = JSON.stringify(input).includes(`"${PATH_MARK}"`);
    pathTaking.set(input, known);
  }
  return known;
}

/** What an operation returns: the static type of its output schema. */
export type OutputOf<O extends AnyOperation> = Static<O["output"]>;

export function defineOp<I extends TObject, O extends TObject, C = OpContext, N extends string = string>(op: Operation<I, O, C, N>): Operation<I, O, C, N> {
  return op;
}
