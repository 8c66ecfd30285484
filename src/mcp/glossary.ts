import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AnyOperation } from "../ops/define.ts";
import { OPERATIONS } from "../ops/registry.ts";
import { isObject, type JsonObject } from "./compact-schema.ts";

/**
 * Fields several tools share with the same meaning: a top-level input field whose description
 * is the same in two or more operations (path, if_match, idempotency_key, cursor, …). The server
 * instructions say each once; the tool schemas an agent reads on every turn then leave it out.
 * Derived from the operation schemas, so the wording has one source.
 */
function sharedFields(ops: readonly AnyOperation[] = OPERATIONS): Map<string, string> {
  const seen = new Map<string, Map<string, number>>();
  for (const op of ops) {
    const properties = (JSON.parse(JSON.stringify(op.input)) as JsonObject).properties;
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

export const SHARED_FIELDS = sharedFields();

/** The shared fields that some of these tools take: what one session's instructions explain. */
export function sharedFieldsOf(tools: readonly Tool[]): Map<string, string> {
  const used = new Set(tools.flatMap((t) => Object.keys(t.inputSchema.properties ?? {})));
  return new Map([...SHARED_FIELDS].filter(([name]) => used.has(name)));
}
