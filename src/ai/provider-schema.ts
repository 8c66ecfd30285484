/**
 * Reply schemas as every provider accepts them (docs/decisions.md, "Provider-exact reply schemas").
 * What indx asks a model for is written once, in TypeBox, with the bounds the runtime enforces;
 * what it sends is the strictest common subset of OpenAI's strict structured outputs, Anthropic's
 * structured outputs behind a gateway and llama.cpp's grammars (Ollama's `format`): every object
 * closed (additionalProperties false) with every property required, an optional property as a
 * nullable one, and no length, count or range bounds (OpenAI and Anthropic refuse several of them;
 * llama.cpp expands a large length bound into a grammar too large to load). The bounds come back
 * in `settleReply`, which turns the provider's reply into one the TypeBox schema accepts: nulls of
 * optional properties removed, strings and arrays cut to their bounds, numbers clamped.
 */

type Json = Record<string, unknown>;

/** Keywords kept in what is sent: structure, alternatives, fixed values and words for the model. */
const KEPT = new Set(["type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "description", "$ref", "$defs"]);

/** String formats all three accept (a caller's "uri" is checked here, after the reply). */
const FORMATS = new Set(["date", "date-time", "time", "email"]);

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export interface ProviderSchema {
  schema: Json;
  /**
   * Whether the schema meets strict mode: false when a part of it has no type (a caller's `{}` in
   * ai_extract), which strict structured outputs cannot express; the provider is then asked without
   * `strict` and the reply is checked here as always.
   */
  strict: boolean;
}

/** The schema as it is sent to a provider. */
export function providerSchema(schema: object): ProviderSchema {
  const state = { strict: true };
  const plain = JSON.parse(JSON.stringify(schema)) as Json;
  return { schema: convert(plain, state), strict: state.strict };
}

function convert(s: Json, state: { strict: boolean }): Json {
  // oneOf has no strict-mode form; the alternatives of a reply never overlap, so anyOf says the same.
  const variants = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) if (KEPT.has(k) && k !== "anyOf") out[k] = v;
  if (typeof s.format === "string" && FORMATS.has(s.format)) out.format = s.format;
  if (Array.isArray(variants)) out.anyOf = variants.map((v) => convert(v, state));
  if (isObject(s.$defs)) out.$defs = Object.fromEntries(Object.entries(s.$defs).map(([k, v]) => [k, isObject(v) ? convert(v, state) : v]));
  if (isObject(s.items)) out.items = convert(s.items, state);
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes("object") || isObject(s.properties)) {
    const props = isObject(s.properties) ? s.properties : {};
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    out.type = s.type ?? "object";
    out.properties = Object.fromEntries(
      Object.entries(props).map(([k, v]) => {
        const sub = convert(isObject(v) ? v : {}, state);
        return [k, required.has(k) ? sub : nullable(sub)];
      }),
    );
    out.required = Object.keys(props);
    out.additionalProperties = false;
  }
  if (out.type === undefined && out.anyOf === undefined && out.$ref === undefined && out.enum === undefined && out.const === undefined) state.strict = false;
  return out;
}

/** The schema, or null besides it. */
function nullable(s: Json): Json {
  if (acceptsNull(s)) return s;
  if (typeof s.type === "string" && s.enum === undefined && s.const === undefined && s.anyOf === undefined && s.$ref === undefined)
    return { ...s, type: [s.type, "null"] };
  return { anyOf: [s, { type: "null" }] };
}

function acceptsNull(s: Json): boolean {
  if (s.type === "null" || (Array.isArray(s.type) && s.type.includes("null"))) return true;
  return Array.isArray(s.anyOf) && (s.anyOf as Json[]).some((v) => isObject(v) && acceptsNull(v));
}

/**
 * The reply as the original schema reads it: a null where the schema has an optional property
 * that does not take null is the property left out; strings and arrays longer than their bound
 * are cut to it and numbers brought into their range, so a model that ignores a bound the
 * provider could not be told about costs that one value its excess, not the whole reply.
 */
export function settleReply(schema: object, value: unknown): unknown {
  const root = JSON.parse(JSON.stringify(schema)) as Json;
  const defs = isObject(root.$defs) ? root.$defs : {};
  return settle(root, value, defs, 0);
}

function settle(s: Json, value: unknown, defs: Json, depth: number): unknown {
  if (depth > 64) return value;
  if (typeof s.$ref === "string") {
    const name = /^#\/\$defs\/(.+)$/.exec(s.$ref)?.[1];
    const target = name ? defs[name] : undefined;
    return isObject(target) ? settle(target, value, defs, depth + 1) : value;
  }
  if (typeof value === "string" && typeof s.maxLength === "number" && [...value].length > s.maxLength) return [...value].slice(0, s.maxLength).join("");
  if (typeof value === "number") {
    if (typeof s.minimum === "number" && value < s.minimum) return s.minimum;
    if (typeof s.maximum === "number" && value > s.maximum) return s.maximum;
    return value;
  }
  if (Array.isArray(value)) {
    const kept = typeof s.maxItems === "number" ? value.slice(0, s.maxItems) : value;
    return isObject(s.items) ? kept.map((v) => settle(s.items as Json, v, defs, depth + 1)) : kept;
  }
  if (isObject(value) && isObject(s.properties)) {
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) {
      const sub = s.properties[k];
      if (!isObject(sub)) {
        out[k] = v;
        continue;
      }
      if (v === null && !required.has(k) && !acceptsNull(sub)) continue;
      out[k] = settle(sub, v, defs, depth + 1);
    }
    return out;
  }
  if (Array.isArray(s.anyOf) && value !== null && value !== undefined) {
    // The first alternative of the value's own kind: enough for the shapes replies use.
    const kind = Array.isArray(value) ? "array" : typeof value === "object" ? "object" : typeof value;
    const match = (s.anyOf as Json[]).find((v) => isObject(v) && (v.type === kind || (kind === "number" && v.type === "integer")));
    return match ? settle(match, value, defs, depth + 1) : value;
  }
  return value;
}
