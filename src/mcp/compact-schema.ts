/**
 * The inputSchema an agent reads on every turn: the operation's input schema (a JSON round trip
 * of its TypeBox schema) made compact without dropping any field or any field's meaning
 * (docs/decisions.md, "An MCP catalogue an agent can afford"). Every field keeps its description:
 * the meaning is in the tool itself, not in instructions a client may drop. The server still
 * validates every call against the full operation schema (invoke), whose refusal names the rule.
 *
 * - String lengths, list and map sizes and number ranges topping 1,000 (the input bounds, which
 *   only a hostile input reaches),
 *   `additionalProperties: false`, a `type` beside a `const`, a `minimum` of 0 or 1, a `pattern`
 *   beside a description (the description says it in words) and every `default` but `true` (a
 *   boolean that is on unless turned off is worth knowing; other defaults are in the words) go.
 * - A description repeated inside one tool is kept at its first occurrence only.
 * - A union of constants becomes an `enum`, a union of plain types a `type` list, a catch-all
 *   patternProperties becomes additionalProperties.
 * - A list of edits that is a union of objects told apart by `op` (note_patch, canvas_patch)
 *   becomes one object: `op` lists each edit as `name(fields): what it does`, the fields are
 *   merged. No `$ref`/`$defs`: several MCP clients cannot resolve them (docs/decisions.md).
 * - A titled type (CanvasNode, AiScope) keeps its title, so that a catalogue can give it in full
 *   once and name it elsewhere (sharedTypesOnce).
 */

import { LIKE_MARK } from "../ops/schemas.ts";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

// PATH_MARK (src/ops/schemas.ts) is for the folder-grant check, not for a model.
const DROPPED_KEYS = new Set(["minLength", "maxLength", "maxItems", "maxProperties", "minProperties", "x-indx-path"]);

/**
 * A number range whose top is at least this (seed, cache lifetime, max_tokens) guards against abuse
 * rather than offering a choice: a model never needs it, and a call beyond it is refused naming
 * the range. A small top (limit ≤ 100, include_linked ≤ 3) says what is possible, and stays.
 */
const ABUSE_BOUND = 1000;

export const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

export function compactInputSchema(schema: JsonObject): JsonObject {
  return compact(schema, new Set());
}

function compact(node: JsonObject, seen: Set<string>): JsonObject {
  const flat = Array.isArray(node.anyOf) ? flattenOpUnion(node) : null;
  if (flat) return compact(flat, seen);
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED_KEYS.has(key) || (key === "default" && value !== true) || (key === "type" && "const" in node)) continue;
    if (key === "additionalProperties" && typeof value === "boolean") continue;
    if (key === "minItems" && value === 1) continue;
    if ((key === "minimum" || key === "exclusiveMinimum") && (value === 0 || value === 1)) continue;
    if ((key === "minimum" || key === "maximum") && typeof node.maximum === "number" && node.maximum >= ABUSE_BOUND) continue;
    if (key === "pattern" && typeof node.description === "string") continue;
    if (key === "title" && !isObject(node.properties) && !Array.isArray(node.anyOf)) continue;
    if (key === "description" && typeof value === "string") {
      if (seen.has(value)) continue;
      seen.add(value);
      out.description = value;
    } else if (key === "properties" && isObject(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, p]) => [name, isObject(p) ? compact(p, seen) : p]));
    } else if (key === "patternProperties" && isObject(value) && Object.keys(value).length === 1 && isObject(value["^(.*)$"])) {
      const values = compact(value["^(.*)$"], seen);
      if (Object.keys(values).length > 0) out.additionalProperties = values;
    } else if (key === "anyOf" && Array.isArray(value)) {
      const constants = constantsOf(value);
      const typeList = value.every((v) => isObject(v) && Object.keys(v).filter((k) => !DROPPED_KEYS.has(k)).length === 1 && typeof v.type === "string")
        ? value.flatMap((v) => (isObject(v) && typeof v.type === "string" ? [v.type] : []))
        : null;
      if (constants) Object.assign(out, constants);
      else if (typeList) out.type = typeList;
      else if (value.every((v) => isObject(v) && v.type === "object")) {
        out.type = "object";
        out.anyOf = value.map((v) => (isObject(v) ? compact(without(v, "type"), seen) : v));
      } else out.anyOf = value.map((v) => (isObject(v) ? compact(v, seen) : v));
    } else out[key] = isObject(value) ? compact(value, seen) : Array.isArray(value) ? value.map((v) => (isObject(v) ? compact(v, seen) : v)) : value;
  }
  return out;
}

/**
 * A union of objects each naming itself with a constant `op` as one object: `op`'s enum and, in
 * its description, each edit with its required fields and what it does (its own description, and
 * what a field means for this edit alone when that differs from the field's first meaning).
 */
function flattenOpUnion(node: JsonObject): JsonObject | null {
  const branches = node.anyOf;
  if (!Array.isArray(branches) || branches.length < 2) return null;
  const ops: { name: string; branch: JsonObject; properties: JsonObject }[] = [];
  for (const b of branches) {
    if (!isObject(b) || !isObject(b.properties) || !isObject(b.properties.op) || typeof b.properties.op.const !== "string") return null;
    ops.push({ name: b.properties.op.const, branch: b, properties: b.properties });
  }
  const merged: JsonObject = {};
  const lines: string[] = [];
  for (const { name, branch, properties } of ops) {
    const required = Array.isArray(branch.required) ? branch.required.filter((f) => f !== "op").map(String) : [];
    const optional = Object.keys(properties).filter((f) => f !== "op" && !required.includes(f));
    const notes: string[] = [];
    for (const text of [isObject(properties.op) ? properties.op.description : undefined, branch.description]) if (typeof text === "string") notes.push(text);
    for (const [field, schema] of Object.entries(properties)) {
      if (field === "op" || !isObject(schema)) continue;
      const first = merged[field];
      if (!isObject(first)) merged[field] = schema;
      else if (typeof schema.description === "string" && schema.description !== first.description) notes.push(`${field}: ${schema.description}`);
    }
    const fields = [...required, ...optional.map((f) => `${f}?`)].join(", ");
    lines.push(`${name}(${fields})${notes.length ? `: ${notes.join(" ")}` : ""}`);
  }
  const description = [typeof node.description === "string" ? node.description : null, ...lines].filter(Boolean).join("\n");
  return {
    type: "object",
    required: ["op"],
    properties: { op: { type: "string", enum: ops.map((o) => o.name), description }, ...merged },
  };
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
    if (!("const" in b) || typeof b.type !== "string" || keys.some((k) => k !== "const" && k !== "type" && k !== "description")) return null;
    if (type !== null && b.type !== type) return null;
    type = b.type;
    values.push(b.const);
  }
  return type === null ? null : { type, enum: values };
}

/**
 * A titled object type several tools of one catalogue take (CanvasNode, AiScope) is given in full,
 * with its title, in the first of them; the others name it (`A CanvasNode, as in canvas_write.`):
 * JSON Schema's `$ref` would say the same, but not every client resolves it (docs/decisions.md).
 * A type marked like one (LIKE_MARK) keeps only the fields that differ from it.
 */
export function sharedTypesOnce<T extends { name: string; inputSchema: JsonObject }>(tools: T[]): T[] {
  const firstUse = new Map<string, { owner: string; properties: JsonObject }>();
  return tools.map((tool) => {
    const mine = new Map<string, JsonObject>();
    const rewrite = (node: Json): Json => {
      if (Array.isArray(node)) return node.map(rewrite);
      if (!isObject(node)) return node;
      const description = typeof node.description === "string" ? `${node.description} ` : "";
      const title = typeof node.title === "string" && (isObject(node.properties) || Array.isArray(node.anyOf)) ? node.title : null;
      if (title) {
        const first = firstUse.get(title);
        if (first !== undefined && first.owner !== tool.name) return { type: "object", description: `${description}A ${title}, as in ${first.owner}.` };
        mine.set(title, isObject(node.properties) ? node.properties : {});
      }
      const like = typeof node[LIKE_MARK] === "string" ? firstUse.get(node[LIKE_MARK]) : undefined;
      if (like && like.owner !== tool.name && isObject(node.properties)) {
        const own = Object.entries(node.properties).filter(([name, p]) => JSON.stringify(p) !== JSON.stringify(like.properties[name]));
        return {
          type: "object",
          description: `${description}Other fields: see ${node[LIKE_MARK]} in ${like.owner}.`,
          ...(Array.isArray(node.required) ? { required: node.required } : {}),
          properties: Object.fromEntries(own),
        };
      }
      return Object.fromEntries(Object.entries(node).flatMap(([k, v]) => (k === LIKE_MARK ? [] : [[k, rewrite(v)]])));
    };
    const inputSchema = rewrite(tool.inputSchema);
    for (const [title, properties] of mine) if (!firstUse.has(title)) firstUse.set(title, { owner: tool.name, properties });
    return isObject(inputSchema) && JSON.stringify(inputSchema) !== JSON.stringify(tool.inputSchema) ? { ...tool, inputSchema } : tool;
  });
}
