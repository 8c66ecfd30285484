import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { OpContext } from "./context.ts";

export type Scope = "vault:read" | "vault:write" | "vault:admin";

/**
 * One row of the mapping table (docs/contracts.md, Operations): written once, typed by TypeBox, and
 * translated by the CLI, REST and MCP surfaces. Nothing about a transport belongs here.
 */
export interface Operation<I extends TObject = TObject, O extends TSchema = TSchema> {
  name: string;
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
  input: I;
  output: O;
  run(ctx: OpContext, input: Static<I>): Promise<Static<O>> | Static<O>;
  /** One short deterministic line describing a result (MCP text content, CLI status). */
  summary(output: Static<O>, input: Static<I>): string;
}

// The registry holds operations of many input/output types.
// biome-ignore lint: heterogeneous registry
export type AnyOperation = Operation<any, any>;

export function defineOp<I extends TObject, O extends TSchema>(op: Operation<I, O>): Operation<I, O> {
  return op;
}
