import { IndxError, toIndxError } from "../core/errors.ts";
import { debugLog } from "../core/log.ts";
import type { OpContext } from "./context.ts";
import type { AnyOperation, Scope } from "./define.ts";
import { parseInput } from "./validate.ts";

/** admin ⊇ write ⊇ read. */
export function hasScope(granted: ReadonlySet<Scope>, needed: Scope): boolean {
  if (granted.has(needed) || granted.has("vault:admin")) return true;
  return needed === "vault:read" && granted.has("vault:write");
}

export interface Invoked {
  result: unknown;
  /** The stored answer to an earlier request with the same idempotency key. */
  replayed: boolean;
}

/**
 * The single way every surface runs an operation: scope check, schema validation (with string
 * coercion for argv and query strings), idempotency for writes, run, and one error type out.
 */
export async function invokeOp(op: AnyOperation, ctx: OpContext, raw: unknown, opts: { coerce?: boolean } = {}): Promise<Invoked> {
  if (!op.dryRunNeedsRead) requireScope(op, ctx, op.scope);
  const input = parseInput(op, raw, opts) as Record<string, unknown>;
  if (op.dryRunNeedsRead) requireScope(op, ctx, input.dry_run === true ? "vault:read" : op.scope);
  try {
    const key = input.idempotency_key;
    if (op.safe || typeof key !== "string" || input.dry_run === true) return { result: await op.run(ctx, input), replayed: false };
    const { idempotency_key: _, ...request } = input;
    return await ctx.idempotency.once(key, { op: op.name, input: request }, async () => op.run(ctx, input));
  } catch (err) {
    if (!(err instanceof IndxError)) debugLog("operation failed", { operation: op.name, error: err });
    throw toIndxError(err);
  }
}

export async function invoke(op: AnyOperation, ctx: OpContext, raw: unknown, opts: { coerce?: boolean } = {}): Promise<unknown> {
  return (await invokeOp(op, ctx, raw, opts)).result;
}

function requireScope(op: AnyOperation, ctx: OpContext, needed: Scope): void {
  if (!hasScope(ctx.scopes, needed)) throw new IndxError("forbidden", `${op.name} needs the ${needed} scope`, { operation: op.name, needed });
}
