import type { Static, TObject, TSchema } from "@sinclair/typebox";
import { type ValueError, ValueErrorType } from "@sinclair/typebox/errors";
import { Value } from "@sinclair/typebox/value";
import { IndxError } from "../core/errors.ts";
import { expectation } from "./schema-words.ts";
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
  const errors: { path: string; message: string; field: string; expected: string }[] = [];
  const seen = new Set<string>();
  for (const e of Value.Errors(schema, value)) {
    const path = e.path || "/";
    // A union reports each branch too: the first error of a path says it best.
    if (seen.has(path)) continue;
    seen.add(path);
    errors.push({ path, message: e.message, field: path.slice(1).replaceAll("/", "."), expected: inWords(e) });
    if (errors.length >= MAX_ERRORS) break;
  }
  const first = errors[0];
  throw new IndxError("validation_failed", first ? `Invalid input for ${name}: ${first.field || "the input"} ${first.expected}` : `Invalid input for ${name}`, {
    errors,
  });
}

/** A validation error in words ("must be lexical, semantic or hybrid (got \"fuzzy\")"), never schema jargon. */
function inWords(e: ValueError): string {
  if (e.type === ValueErrorType.ObjectRequiredProperty) return "is required";
  if (e.type === ValueErrorType.ObjectAdditionalProperties) return "is not a known field";
  if (e.type === ValueErrorType.Union) {
    const tagged = taggedUnionInWords(e.schema, e.value);
    if (tagged) return tagged;
  }
  // A pattern is the rule a value of the right length broke: say it, not the length (the field's
  // description says it in words, the pattern as written).
  const expected = e.type === ValueErrorType.StringFormat || e.type === ValueErrorType.StringPattern ? patternInWords(e.schema) : expectation(e.schema);
  if (!expected) return e.message.replace(/^Expected/, "must be");
  const got = typeof e.value === "string" ? JSON.stringify(e.value.length > 40 ? `${e.value.slice(0, 40)}…` : e.value) : JSON.stringify(e.value);
  return got === undefined ? expected : `${expected} (got ${got})`;
}

function patternInWords(schema: TSchema): string | null {
  const rule = typeof schema.pattern === "string" ? `the pattern ${schema.pattern}` : typeof schema.format === "string" ? `the format ${schema.format}` : null;
  if (!rule) return expectation(schema);
  return `must match ${rule}${typeof schema.description === "string" ? ` (${schema.description.replace(/\.$/, "")})` : ""}`;
}

/**
 * A union of objects told apart by one literal field (a patch op's `op`, a node's `type`): the
 * rule the value broke, in words — an unknown tag names the known ones, a known tag the first
 * error of its own branch — rather than "must be union value".
 */
function taggedUnionInWords(schema: TSchema, value: unknown): string | null {
  const branches = schema.anyOf as TSchema[] | undefined;
  if (!branches?.length || !value || typeof value !== "object" || Array.isArray(value)) return null;
  const tagOf = (b: TSchema, key: string): unknown => (b.properties as Record<string, TSchema> | undefined)?.[key]?.const;
  const keys = Object.keys((branches[0]?.properties as Record<string, TSchema> | undefined) ?? {});
  const key = keys.find((k) => branches.every((b) => typeof tagOf(b, k) === "string"));
  if (!key) return null;
  const tag = (value as Record<string, unknown>)[key];
  const branch = branches.find((b) => tagOf(b, key) === tag);
  if (!branch) {
    const known = branches.map((b) => String(tagOf(b, key)));
    return `has ${key} ${JSON.stringify(tag) ?? "missing"}: ${key} must be one of ${known.join(", ")}`;
  }
  const first = Value.Errors(branch, value).First();
  if (!first) return null;
  return `(${key} ${JSON.stringify(tag)}): ${first.path.slice(1).replaceAll("/", ".") || "it"} ${inWords(first)}`;
}
