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

/**
 * The single way every surface runs an operation: scope check, schema validation (with string
 * coercion for argv and query strings), run, and one error type out.
 */
export async function invoke(op: AnyOperation, ctx: OpContext, raw: unknown, opts: { coerce?: boolean } = {}): Promise<unknown> {
  if (!hasScope(ctx.scopes, op.scope))
    throw new IndxError("forbidden", `${op.name} needs the ${op.scope} scope`, { operation: op.name, needed: op.scope });
  const input = parseInput(op, raw, opts);
  try {
    return await op.run(ctx, input);
  } catch (err) {
    if (!(err instanceof IndxError)) debugLog("operation failed", { operation: op.name, error: err });
    throw toIndxError(err);
  }
}
