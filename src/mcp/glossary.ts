import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AnyOperation } from "../ops/define.ts";
import { OPERATIONS } from "../ops/registry.ts";
import { isObject, type JsonObject } from "./compact-schema.ts";

/**
 * What the server instructions say once so that the tool schemas an agent reads on every turn can
 * leave it out. Derived from the operation schemas, so the wording has one source.
 */
export interface Glossary {
  /** Field name → the one description of a top-level input field several tools share. */
  fields: ReadonlyMap<string, string>;
  /** Title → the schema of a titled input type (AiScope, CanvasNode, …) several tools take. */
  types: ReadonlyMap<string, JsonObject>;
}

const plainInput = (op: AnyOperation) => JSON.parse(JSON.stringify(op.input)) as JsonObject;

/**
 * Fields several tools share with the same meaning: a top-level input field whose description
 * is the same in two or more operations (path, if_match, idempotency_key, cursor, …).
 */
function sharedFields(ops: readonly AnyOperation[]): Map<string, string> {
  const seen = new Map<string, Map<string, number>>();
  for (const op of ops) {
    const properties = plainInput(op).properties;
    if (!isObject(properties)) continue;
    for (const [name, p] of Object.entries(properties)) {
      if (!isObject(p) || typeof p.description !== "string") continue;
      const counts = seen.get(name) ?? new Map<string, number>();
      counts.set(p.description, (counts.get(p.description) ?? 0) + 1);
      seen.set(name, counts);
    }
  }
  const glossary = new Map<string, string>();
  for (const [name, counts] of seen) {
    const [description, count] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    if (count >= 2) glossary.set(name, description);
  }
  return glossary;
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

export const GLOSSARY: Glossary = { fields: sharedFields(OPERATIONS), types: sharedTypes(OPERATIONS) };

/** The part of the glossary these tools use: what one session's instructions explain. */
export function glossaryOf(tools: readonly Tool[]): Glossary {
  const used = new Set(tools.flatMap((t) => Object.keys(t.inputSchema.properties ?? {})));
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
  return { fields: new Map([...GLOSSARY.fields].filter(([name]) => used.has(name))), types };
}
