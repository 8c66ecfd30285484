import type { Static, TObject, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { IndxError } from "../core/errors.ts";
import { INPUT_LIMITS } from "./schemas.ts";

const MAX_ERRORS = 10;

/**
 * Checks raw input against an operation's schema. `coerce` converts strings from argv or a query
 * string into the schema's numbers, booleans and arrays first. Unknown keys are refused so a
 * misspelt option never silently does nothing.
 */
export function parseInput<I extends TObject>(op: { name: string; input: I }, raw: unknown, opts: { coerce?: boolean } = {}): Static<I> {
  const base = raw === undefined || raw === null ? {} : raw;
  if (typeof base !== "object" || Array.isArray(base)) throw new IndxError("validation_failed", `${op.name} expects a JSON object`, { operation: op.name });
  assertShallow(base, op.name);
  let value: unknown = Value.Default(op.input, structuredClone(base));
  if (opts.coerce) value = Value.Convert(op.input, value);
  assertValid(op.input, value, op.name);
  return value;
}

/**
 * Refuses input nested deeper than INPUT_LIMITS.depth before anything copies or walks it
 * recursively (structuredClone and the schema checks would overflow the stack). Iterative, so
 * the check itself never does.
 */
function assertShallow(value: object, name: string): void {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== "object") continue;
    if (depth > INPUT_LIMITS.depth)
      throw new IndxError("validation_failed", `Invalid input for ${name}: nested deeper than ${INPUT_LIMITS.depth} levels`, { limit: INPUT_LIMITS.depth });
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
}

function assertValid<T extends TSchema>(schema: T, value: unknown, name: string): asserts value is Static<T> {
  if (Value.Check(schema, value)) return;
  const errors: { path: string; message: string }[] = [];
  for (const e of Value.Errors(schema, value)) {
    errors.push({ path: e.path || "/", message: e.message });
    if (errors.length >= MAX_ERRORS) break;
  }
  const first = errors[0];
  throw new IndxError("validation_failed", first ? `Invalid input for ${name}: ${first.path} ${first.message}` : `Invalid input for ${name}`, { errors });
}
