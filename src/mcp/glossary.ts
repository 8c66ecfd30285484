import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { OPERATIONS } from "../app/registry.ts";
import type { AnyOperation } from "../ops/define.ts";
import { compactField, isObject, type JsonObject } from "./compact-schema.ts";

/**
 * What the server instructions say once so that the tool schemas an agent reads on every turn can
 * leave it out. Derived from the operation schemas, so the wording has one source.
 */
export interface Glossary {
  /** Field name → what a top-level input field several tools share means (most used first). */
  fields: ReadonlyMap<string, readonly SharedField[]>;
  /** Title → the schema of a titled input type (AiScope, CanvasNode, …) several tools take. */
  types: ReadonlyMap<string, JsonObject>;
}

export interface SharedField {
  description: string;
  /** Keywords besides type and title (bounds, a default) that two or more of those tools give the field alike. */
  details: JsonObject;
}

const plainInput = (op: AnyOperation) => JSON.parse(JSON.stringify(op.input)) as JsonObject;

/**
 * Fields several tools share with the same meaning: a top-level input field whose description
 * is the same in two or more operations (path, if_match, idempotency_key, cursor, …), with the
 * bounds and default most of them give it (seed, max_tokens, cache, …). A name may have more
 * than one shared meaning (if_match: a write's etag, or an AI apply's path → etag map).
 */
function sharedFields(ops: readonly AnyOperation[], types: Glossary["types"]): Map<string, SharedField[]> {
  const seen = new Map<string, Map<string, string[]>>();
  for (const op of ops) {
    const properties = plainInput(op).properties;
    if (!isObject(properties)) continue;
    for (const [name, p] of Object.entries(properties)) {
      if (!isObject(p) || typeof p.description !== "string") continue;
      const uses = seen.get(name) ?? new Map<string, string[]>();
      uses.set(p.description, [...(uses.get(p.description) ?? []), JSON.stringify(fieldDetails(p, types))]);
      seen.set(name, uses);
    }
  }
  const glossary = new Map<string, SharedField[]>();
  for (const [name, uses] of seen) {
    const meanings = [...uses].filter(([, details]) => details.length >= 2).sort((a, b) => b[1].length - a[1].length);
    if (meanings.length > 0)
      glossary.set(
        name,
        meanings.map(([description, details]) => ({ description, details: sharedDetails(details) })),
      );
  }
  return glossary;
}

/** The details most uses give alike, if two or more do. */
function sharedDetails(uses: string[]): JsonObject {
  const counts = new Map<string, number>();
  for (const details of uses) counts.set(details, (counts.get(details) ?? 0) + 1);
  const [most] = [...counts].sort((a, b) => b[1] - a[1]);
  return most && most[1] >= 2 ? (JSON.parse(most[0]) as JsonObject) : {};
}

/** Keywords of a field that can be said once for several tools: what it accepts stays in each tool (type, enum, items, …). */
const DETAIL_KEYS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "default"];

function fieldDetails(field: JsonObject, types: Glossary["types"]): JsonObject {
  const compact = compactField(field, types);
  return Object.fromEntries(
    DETAIL_KEYS.flatMap((key) => {
      const value = compact[key];
      return value === undefined ? [] : [[key, value]];
    }),
  );
}

/**
 * Types several tools share: a titled subschema of the input of two or more operations, the same
 * wherever it appears but for the description of the field that takes it (a title given to two
 * different schemas stays inline in each).
 */
function sharedTypes(ops: readonly AnyOperation[]): Map<string, JsonObject> {
  const uses = new Map<string, { schema: JsonObject; ops: Set<string>; json: Set<string> }>();
  for (const op of ops)
    for (const schema of titledIn(plainInput(op))) {
      const title = String(schema.title);
      const use = uses.get(title) ?? { schema, ops: new Set<string>(), json: new Set<string>() };
      use.ops.add(op.name);
      use.json.add(JSON.stringify(withoutDescription(schema)));
      uses.set(title, use);
    }
  return new Map([...uses].filter(([, use]) => use.ops.size >= 2 && use.json.size === 1).map(([title, use]) => [title, use.schema]));
}

function withoutDescription(schema: JsonObject): JsonObject {
  const { description: _description, ...rest } = schema;
  return rest;
}

function titledIn(node: unknown): JsonObject[] {
  if (Array.isArray(node)) return node.flatMap(titledIn);
  if (!isObject(node)) return [];
  const inner = Object.values(node).flatMap(titledIn);
  return typeof node.title === "string" ? [node, ...inner] : inner;
}

const SHARED_TYPES = sharedTypes(OPERATIONS);

export const GLOSSARY: Glossary = { fields: sharedFields(OPERATIONS, SHARED_TYPES), types: SHARED_TYPES };

const OPERATION_BY_NAME = new Map(OPERATIONS.map((op) => [op.name, op]));

/** `name: description` of each field these tools take, in the meaning their operation gives it. */
function meaningsUsed(tools: readonly Tool[]): Set<string> {
  const used = new Set<string>();
  for (const t of tools) {
    const op = OPERATION_BY_NAME.get(t.name);
    const properties = op ? plainInput(op).properties : undefined;
    if (!isObject(properties)) continue;
    for (const name of Object.keys(t.inputSchema.properties ?? {})) {
      const field = properties[name];
      if (isObject(field) && typeof field.description === "string") used.add(`${name}: ${field.description}`);
    }
  }
  return used;
}

/** The part of the glossary these tools use: what one session's instructions explain. */
export function glossaryOf(tools: readonly Tool[]): Glossary {
  const used = meaningsUsed(tools);
  const fields = new Map<string, SharedField[]>();
  for (const [name, meanings] of GLOSSARY.fields) {
    const inUse = meanings.filter(({ description }) => used.has(`${name}: ${description}`));
    if (inUse.length > 0) fields.set(name, inUse);
  }
  const types = new Map<string, JsonObject>();
  const addTypesIn = (node: unknown) => {
    for (const { title } of titledIn(node)) {
      const schema = GLOSSARY.types.get(String(title));
      if (!schema || types.has(String(title))) continue;
      types.set(String(title), schema);
      addTypesIn(schema);
    }
  };
  for (const t of tools) addTypesIn(t.inputSchema);
  return { fields, types };
}
