import type { Static, TObject } from "@sinclair/typebox";
import { IndxError, toIndxError } from "../core/errors.ts";
import { debugLog } from "../core/log.ts";
import type { OpContext } from "./context.ts";
import { type AnyOperation, errorsOf, type Operation, type Scope } from "./define.ts";
import { assertNothingHidden, checkGrantedInput, scrubError } from "./grant-check.ts";
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
 * The single way every surface runs an operation: note names resolved, scope check, schema
 * validation (with string coercion for argv and query strings), idempotency for writes, run, and
 * one error type out.
 */
export async function invokeOp<I extends TObject, O extends TObject>(
  op: Operation<I, O>,
  ctx: OpContext,
  raw: unknown,
  opts: { coerce?: boolean } = {},
): Promise<Invoked<I, O>> {
  // A read's `path` (or each of `paths`) may be a note's name (docs/contracts.md, Paths), resolved
  // here once for the CLI, REST and MCP; a write never lands on a guessed note, and note_exists
  // answers for the exact path. A miss names the closest paths the call may see.
  if (!op.safe || op.name === "note_exists" || typeof raw !== "object" || raw === null || Array.isArray(raw)) return run(op, ctx, raw, opts);
  const names = ctx.noteNames;
  const input: Record<string, unknown> = { ...raw };
  const typed = typeof input.path === "string" ? input.path : null;
  if (typed !== null) input.path = names.resolve(typed);
  if (Array.isArray(input.paths)) input.paths = input.paths.map((p) => (typeof p === "string" ? names.resolve(p) : p));
  try {
    return await run(op, ctx, input, opts);
  } catch (err) {
    throw typed !== null && err instanceof IndxError ? names.suggest(err, typed) : err;
  }
}

async function run<I extends TObject, O extends TObject>(
  op: Operation<I, O>,
  ctx: OpContext,
  raw: unknown,
  opts: { coerce?: boolean },
): Promise<Invoked<I, O>> {
  if (!op.dryRunNeedsRead) requireScope(op, ctx, op.scope);
  const input = parseInput(op, raw, opts);
  const { dry_run, idempotency_key: key }: WriteControls = input;
  if (op.dryRunNeedsRead) requireScope(op, ctx, dry_run === true ? "vault:read" : op.scope);
  if (op.writes?.when(input)) requireScope(op, ctx, "vault:write", ` to write (${op.writes.fields.join(", ")})`);
  const { grant } = ctx;
  // A folder grant, checked here for every operation (docs/permissions.md, "One choke point"):
  // its input paths first, before anything is read. These refusals name only the caller's input.
  if (grant)
    try {
      checkGrantedInput(op, grant, input);
    } catch (err) {
      throw undeclared(op, toIndxError(err));
    }
  // The model an operation declares it needs, checked once here for every AI operation: a missing
  // one is ai_unavailable naming the role and the fix, before anything is read or sent.
  try {
    // The vault folder gone under a long-running server: every operation says so (vault_missing).
    ctx.vault.assertPresent();
    // Under a grant a write plans against the whole index (so a plan that would rewrite a note
    // outside the grant is refused whole by the call's writer); anything else reads the grant's
    // view of it. The output is checked again on the way out.
    const runCtx = grant && !op.safe && !op.ai ? ctx.wholeIndex() : ctx;
    if (op.ai?.needs === "chat" && (op.ai.when?.(input) ?? true)) ctx.ai.chat();
    let out: Invoked<I, O>;
    if ((op.safe && !op.ai) || typeof key !== "string" || dry_run === true) out = { input, result: await op.run(runCtx, input), replayed: false };
    else {
      const { idempotency_key: _, ...request } = input;
      // A key is the caller's: under a grant its stored answers are its grant's alone.
      const scope = grant ? { op: op.name, input: request, grant: grant.key } : { op: op.name, input: request };
      const { result, replayed } = await ctx.idempotency.once(key, scope, async () => op.run(runCtx, input));
      out = { input, result, replayed };
    }
    if (grant) assertNothingHidden(ctx, grant, out.result);
    return out;
  } catch (err) {
    if (!(err instanceof IndxError)) debugLog("operation failed", { operation: op.name, error: err });
    const typed = ctx.vault.storageError(err) ?? toIndxError(err);
    throw undeclared(op, grant ? scrubError(ctx, grant, typed) : typed);
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

/**
 * With INDX_CHECK_ERRORS=1 (the test preload sets it), an error whose code the operation does not
 * declare becomes an internal error saying so, so a test that sees an undeclared code fails and
 * the declaration that OpenAPI shows never falls behind (docs/architecture.md).
 */
function undeclared(op: AnyOperation, err: IndxError): IndxError {
  if (process.env.INDX_CHECK_ERRORS !== "1" || errorsOf(op).includes(err.code)) return err;
  return new IndxError("internal", `${op.name} returned ${err.code}, which its errors list does not declare: ${err.message}`, {
    operation: op.name,
    undeclared: err.code,
  });
}
