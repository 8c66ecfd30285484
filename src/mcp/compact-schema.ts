/**
 * The inputSchema an agent reads on every turn: the operation's input schema (a JSON round trip
 * of its TypeBox schema) made compact without changing what it accepts in any way an agent
 * relies on. The server still validates every call against the full operation schema (invoke).
 *
 * - A top-level field whose description is the shared one (the glossary: see glossary.ts) loses
 *   it, and its bounds and default too when they are the shared ones; a titled type several tools take (AiScope, CanvasNode) keeps
 *   its shape in each tool, and the server instructions say once what its parts mean.
 * - A description repeated inside one tool is kept at its first occurrence only.
 * - String lengths and list and map sizes (the input bounds, which only a hostile input reaches;
 *   the server's refusal names the limit), `title`, `additionalProperties` (the instructions say that only listed fields
 *   are accepted), a `type` beside a `const`, and every `default` but `true` (a boolean that is
 *   on unless turned off is worth knowing) go: noise to a model.
 * - A `pattern` beside a description goes (the description says it in words).
 * - A union of constants becomes an `enum`, a union of plain types a `type` list, a union of
 *   objects states `type: "object"` once, and a catch-all patternProperties becomes additionalProperties.
 */

import type { Glossary } from "./glossary.ts";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

// PATH_MARK (src/ops/schemas.ts) is for the folder-grant check, not for a model.
const DROPPED_KEYS = new Set(["minLength", "maxLength", "maxItems", "maxProperties", "title", "x-indx-path"]);

export function compactInputSchema(schema: JsonObject, glossary: Glossary): JsonObject {
  const out = compact(schema, new Set(), glossary.types);
  const properties = out.properties;
  if (isObject(properties))
    for (const [name, p] of Object.entries(properties)) {
      const shared = isObject(p) ? glossary.fields.get(name)?.find((meaning) => meaning.description === p.description) : undefined;
      if (!isObject(p) || !shared) continue;
      delete p.description;
      const details = Object.entries(shared.details);
      if (details.every(([key, value]) => JSON.stringify(p[key]) === JSON.stringify(value))) for (const [key] of details) delete p[key];
    }
  return out;
}

/** One field's schema compacted alone, as a tool's schema would give it but for the glossary's field descriptions. */
export function compactField(schema: JsonObject, types: Glossary["types"]): JsonObject {
  return compact(schema, new Set(), types);
}

export const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

function compact(node: JsonObject, seen: Set<string>, types: Glossary["types"]): JsonObject {
  const shared = typeof node.title === "string" ? types.get(node.title) : undefined;
  if (shared !== undefined) return sharedTypeUse(node, shared, seen);
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED_KEYS.has(key) || (key === "default" && value !== true) || (key === "type" && "const" in node)) continue;
    if (key === "additionalProperties" && typeof value === "boolean") continue;
    // A described field's pattern repeats the description in regex: the description stays, and the
    // server's refusal names the pattern.
    if (key === "pattern" && typeof node.description === "string") continue;
    if (key === "description" && typeof value === "string") {
      if (seen.has(value)) continue;
      seen.add(value);
      out.description = value;
    } else if (key === "properties" && isObject(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, p]) => [name, isObject(p) ? compact(p, seen, types) : p]));
    } else if (key === "patternProperties" && isObject(value) && Object.keys(value).length === 1 && isObject(value["^(.*)$"])) {
      const values = compact(value["^(.*)$"], seen, types);
      if (Object.keys(values).length > 0) out.additionalProperties = values;
    } else if (key === "anyOf" && Array.isArray(value)) {
      const constants = constantsOf(value);
      // Bounds go first (see DROPPED_KEYS), so a union of bounded plain types is a type list too.
      const typeList = value.every((v) => isObject(v) && Object.keys(v).filter((k) => !DROPPED_KEYS.has(k)).length === 1 && typeof v.type === "string")
        ? value.flatMap((v) => {
            const type = isObject(v) ? v.type : v;
            return type === undefined ? [] : [type];
          })
        : null;
      if (constants) Object.assign(out, constants);
      else if (typeList) out.type = typeList;
      else if (value.every((v) => isObject(v) && v.type === "object")) {
        out.type = "object";
        out.anyOf = value.map((v) => (isObject(v) ? compact(without(v, "type"), seen, types) : v));
      } else out.anyOf = value.map((v) => (isObject(v) ? compact(v, seen, types) : v));
    } else
      out[key] = isObject(value) ? compact(value, seen, types) : Array.isArray(value) ? value.map((v) => (isObject(v) ? compact(v, seen, types) : v)) : value;
  }
  return out;
}

/**
 * A field that takes a shared type: its title and its shape (field names, types, enums, required;
 * no descriptions), and what this field says of it if that differs from the type's own
 * description. The shape stays in the tool so a client that never shows the server instructions
 * still lets its model build a valid value; what each part means is said once, in the instructions.
 */
function sharedTypeUse(node: JsonObject, type: JsonObject, seen: Set<string>): JsonObject {
  const out: JsonObject = {};
  const { description } = node;
  if (typeof description === "string" && description !== type.description && !seen.has(description)) {
    seen.add(description);
    out.description = description;
  }
  out.title = String(node.title);
  Object.assign(out, shapeOf(compact(without(node, "title"), new Set(), new Map())));
  return out;
}

/** Said of a shared type once, in the instructions, with its descriptions. */
const SHAPE_DROPS = new Set(["description", "minimum", "maximum", "minItems"]);

/** A compacted schema without its descriptions and bounds: the shape alone. */
function shapeOf(node: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (SHAPE_DROPS.has(key)) continue;
    out[key] = isObject(value) ? shapeOf(value) : Array.isArray(value) ? value.map((v) => (isObject(v) ? shapeOf(v) : v)) : value;
  }
  return out;
}

function without(node: JsonObject, key: string): JsonObject {
  const { [key]: _dropped, ...rest } = node;
  return rest;
}

/** `anyOf` of plain constants (nested unions included) as one `enum` of their shared type. */
function constantsOf(branches: Json[]): { type: string; enum: Json[] } | null {
  const values: Json[] = [];
  let type: string | null = null;
  for (const b of branches) {
    if (!isObject(b)) return null;
    if (Array.isArray(b.anyOf) && Object.keys(b).length === 1) {
      const inner = constantsOf(b.anyOf);
      if (!inner || (type !== null && inner.type !== type)) return null;
      type = inner.type;
      values.push(...inner.enum);
      continue;
    }
    const keys = Object.keys(b);
    if (!("const" in b) || typeof b.type !== "string" || keys.some((k) => k !== "const" && k !== "type")) return null;
    if (type !== null && b.type !== type) return null;
    type = b.type;
    values.push(b.const);
  }
  return type === null ? null : { type, enum: values };
}
