/**
 * The schema rules of structured outputs as the real services document them, for the fake server
 * (test/support/fake-ai-server.ts) to refuse what they refuse (docs/decisions.md, "Provider-exact
 * reply schemas").
 *
 * OpenAI, `strict: true`: the root is an object (not anyOf); every object has
 * `additionalProperties: false` and lists every property in `required` (an optional value is a
 * nullable one); every subschema has a type (or anyOf, enum, const, $ref); only the supported
 * keywords appear (structure, anyOf, enum, const, description/title, $ref/$defs, string pattern
 * and format, number multipleOf/minimum/maximum/exclusive bounds, array minItems/maxItems — so no
 * minLength, maxLength, default, oneOf, allOf, not, patternProperties, uniqueItems…); at most 10
 * levels of nesting, 5,000 properties, 1,000 enum values, and 120,000 characters of property names,
 * definition names, enum and const values together.
 *
 * Anthropic's models behind an OpenAI-compatible gateway take the same subset less the number
 * bounds, maxItems, and minItems other than 0 or 1, and no recursive schemas.
 */

type Json = Record<string, unknown>;

export type SchemaDialect = "openai" | "anthropic";

const STRUCTURE = [
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "anyOf",
  "enum",
  "const",
  "description",
  "title",
  "$ref",
  "$defs",
  "definitions",
];
const OPENAI_EXTRA = ["pattern", "format", "multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems"];
const ANTHROPIC_EXTRA = ["pattern", "format", "minItems"];
const FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid", "uri"]);
const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
const LIMITS = { depth: 10, properties: 5_000, enumValues: 1_000, stringChars: 120_000 };

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Why the service would refuse the schema, in its own words; empty when it accepts it. */
export function strictSchemaProblems(schema: unknown, dialect: SchemaDialect = "openai", name = "response"): string[] {
  const problems: string[] = [];
  const allowed = new Set([...STRUCTURE, ...(dialect === "openai" ? OPENAI_EXTRA : ANTHROPIC_EXTRA)]);
  const totals = { properties: 0, enumValues: 0, chars: 0 };
  const say = (context: string[], message: string) =>
    problems.push(`Invalid schema for response_format '${name}': In context=(${context.map((c) => `'${c}'`).join(", ")}), ${message}`);
  if (!isObject(schema)) {
    say([], "schema must be a JSON Schema of 'type: \"object\"'.");
    return problems;
  }
  if (schema.type !== "object" || schema.anyOf !== undefined)
    say([], "schema must be a JSON Schema of 'type: \"object\"', got 'anyOf' or another type at the root.");
  const defs = { ...(isObject(schema.$defs) ? schema.$defs : {}), ...(isObject(schema.definitions) ? schema.definitions : {}) };

  const walk = (s: unknown, context: string[], depth: number, refs: string[]) => {
    if (!isObject(s)) {
      say(context, "schema must be an object.");
      return;
    }
    if (depth > LIMITS.depth) say(context, `the schema exceeds ${LIMITS.depth} levels of nesting.`);
    for (const key of Object.keys(s)) if (!allowed.has(key)) say(context, `'${key}' is not permitted.`);
    const hasKind = s.type !== undefined || s.anyOf !== undefined || s.$ref !== undefined || s.enum !== undefined || s.const !== undefined;
    if (!hasKind) say(context, "schema must have a 'type' key.");
    const types = Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type];
    for (const t of types) if (typeof t !== "string" || !TYPES.has(t)) say(context, `'${String(t)}' is not a valid type.`);
    if (typeof s.format === "string" && !FORMATS.has(s.format)) say(context, `'format' '${s.format}' is not supported.`);
    if (dialect === "anthropic" && typeof s.minItems === "number" && s.minItems > 1) say(context, "'minItems' values other than 0 and 1 are not supported.");
    if (s.const !== undefined) totals.chars += JSON.stringify(s.const).length;
    if (Array.isArray(s.enum)) {
      totals.enumValues += s.enum.length;
      for (const v of s.enum) totals.chars += String(v).length;
    }
    if (types.includes("object") || s.properties !== undefined) {
      const props = isObject(s.properties) ? s.properties : {};
      const keys = Object.keys(props);
      totals.properties += keys.length;
      for (const k of keys) totals.chars += k.length;
      if (s.additionalProperties !== false) say(context, "'additionalProperties' is required to be supplied and to be false.");
      const required = Array.isArray(s.required) ? s.required : [];
      const missing = keys.filter((k) => !required.includes(k));
      if (missing.length || required.length !== keys.length)
        say(context, `'required' is required to be supplied and to be an array including every key in properties. Missing '${missing[0] ?? required[0]}'.`);
      for (const k of keys) walk(props[k], [...context, "properties", k], depth + 1, refs);
    }
    if (s.items !== undefined) walk(s.items, [...context, "items"], depth + 1, refs);
    if (Array.isArray(s.anyOf)) for (const [i, v] of s.anyOf.entries()) walk(v, [...context, "anyOf", String(i)], depth + 1, refs);
    if (typeof s.$ref === "string") {
      const target = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(s.$ref)?.[1];
      if (target === undefined || !(target in defs)) say(context, `reference '${s.$ref}' can't be resolved.`);
      else if (refs.includes(target)) {
        if (dialect === "anthropic") say(context, "recursive schemas are not supported.");
      } else walk(defs[target], [...context, "$ref"], depth + 1, [...refs, target]);
    }
  };
  walk(schema, [], 1, []);
  for (const k of Object.keys(defs)) totals.chars += k.length;
  if (totals.properties > LIMITS.properties) say([], `the schema has more than ${LIMITS.properties} object properties.`);
  if (totals.enumValues > LIMITS.enumValues) say([], `the schema has more than ${LIMITS.enumValues} enum values.`);
  if (totals.chars > LIMITS.stringChars)
    say([], `the total string length of property names, definition names, enum and const values exceeds ${LIMITS.stringChars}.`);
  return [...new Set(problems)];
}

/**
 * How api.openai.com answers a strict schema it refuses: 400, an `invalid_request_error` naming
 * `response_format` as the parameter at fault.
 */
export function strictSchemaRefusal(problem: string): Response {
  return Response.json({ error: { message: problem, type: "invalid_request_error", param: "response_format", code: null } }, { status: 400 });
}

/** The refusal the real service would send for this chat request's schema, or null when it accepts it. */
export function refuseStrictSchema(body: Json, model: string | null): Response | null {
  const format = body.response_format as { type?: unknown; json_schema?: { strict?: unknown; schema?: unknown; name?: unknown } } | undefined;
  if (format?.type !== "json_schema" || format.json_schema?.strict !== true) return null;
  const dialect: SchemaDialect = model?.startsWith("anthropic/") ? "anthropic" : "openai";
  const problems = strictSchemaProblems(format.json_schema.schema, dialect, typeof format.json_schema.name === "string" ? format.json_schema.name : "response");
  return problems.length ? strictSchemaRefusal(problems[0]!) : null;
}
