import type { Static, TObject } from "@sinclair/typebox";
import { IndxError, toIndxError } from "../core/errors.ts";
import { debugLog } from "../core/log.ts";
import type { OpContext } from "./context.ts";
import type { AnyOperation, Operation, Scope } from "./define.ts";
import { parseInput } from "./validate.ts";

/** admin ⊇ write ⊇ read. */
export function hasScope(granted: ReadonlySet<Scope>, needed: Scope): boolean {
  if (granted.has(needed) || granted.has("vault:admin")) return true;
  return needed === "vault:read" && granted.has("vault:write");
}

export interface Invoked<I extends TObject, O extends TObject> {
  /** The input the operation ran with: validated, defaults applied. */
  input: Static<I>;
  result: Static<O>;
  /** The stored answer to an earlier request with the same idempotency key. */
  replayed: boolean;
}

/**
 * The single way every surface runs an operation: scope check, schema validation (with string
 * coercion for argv and query strings), idempotency for writes, run, and one error type out.
 */
export async function invokeOp<I extends TObject, O extends TObject>(
  op: Operation<I, O>,
  ctx: OpContext,
  raw: unknown,
  opts: { coerce?: boolean } = {},
): Promise<Invoked<I, O>> {
  if (!op.dryRunNeedsRead) requireScope(op, ctx, op.scope);
  const input = parseInput(op, raw, opts);
  const { dry_run, idempotency_key: key }: WriteControls = input;
  if (op.dryRunNeedsRead) requireScope(op, ctx, dry_run === true ? "vault:read" : op.scope);
  if (op.writes?.when(input)) requireScope(op, ctx, "vault:write", ` to write (${op.writes.fields.join(", ")})`);
  try {
    // The vault folder gone under a long-running server: every operation says so (vault_missing).
    ctx.vault.assertPresent();
    if ((op.safe && !op.ai) || typeof key !== "string" || dry_run === true) return { input, result: await op.run(ctx, input), replayed: false };
    const { idempotency_key: _, ...request } = input;
    const { result, replayed } = await ctx.idempotency.once(key, { op: op.name, input: request }, async () => op.run(ctx, input));
    return { input, result, replayed };
  } catch (err) {
    if (!(err instanceof IndxError)) debugLog("operation failed", { operation: op.name, error: err });
    throw ctx.vault.storageError(err) ?? toIndxError(err);
  }
}

/** The input fields invokeOp itself reads; an operation's schema may or may not declare them. */
interface WriteControls {
  dry_run?: unknown;
  idempotency_key?: unknown;
}

/** invokeOp for callers that need only the result, typed by the operation's output schema. */
export async function invoke<I extends TObject, O extends TObject>(
  op: Operation<I, O>,
  ctx: OpContext,
  raw: unknown,
  opts: { coerce?: boolean } = {},
): Promise<Static<O>> {
  return (await invokeOp(op, ctx, raw, opts)).result;
}

function requireScope(op: Pick<AnyOperation, "name">, ctx: OpContext, needed: Scope, why = ""): void {
  if (!hasScope(ctx.scopes, needed)) throw new IndxError("forbidden", `${op.name} needs the ${needed} scope${why}`, { operation: op.name, needed });
}
