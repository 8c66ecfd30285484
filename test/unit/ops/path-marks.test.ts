import { describe, expect, test } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import { OPERATIONS } from "../../../src/app/registry.ts";
import { errorsOf } from "../../../src/ops/define.ts";
import { markedPaths } from "../../../src/ops/grant-check.ts";
import { PATH_MARK } from "../../../src/ops/schemas.ts";

/** Every string field of an input schema, with its name and whether it carries the path mark. */
function stringFields(schema: TSchema, name: string, out: { at: string; name: string; marked: boolean }[], at = ""): typeof out {
  if (schema.type === "string") out.push({ at, name, marked: schema[PATH_MARK] !== undefined });
  if (schema.items) stringFields(schema.items as TSchema, name, out, `${at}[]`);
  if (schema.properties) for (const [k, v] of Object.entries(schema.properties as Record<string, TSchema>)) stringFields(v, k, out, `${at}.${k}`);
  for (const alt of [...((schema.anyOf as TSchema[]) ?? []), ...((schema.allOf as TSchema[]) ?? [])]) stringFields(alt, name, out, at);
  return out;
}

describe("the folder-grant check finds every path an operation takes (docs/permissions.md)", () => {
  test("an input field named like a vault file carries the path mark, in every operation", () => {
    // A field of these names is a file of the vault: unmarked, a folder grant would not check it.
    const named = /^(path|paths|note|template|to)$/;
    // Fields of those names that are not vault files the call reads or writes.
    const notFiles = new Set(["tag_rename.to", "note_patch.ops[].to"]);
    const unmarked = OPERATIONS.flatMap((op) =>
      stringFields(op.input, "", [])
        .filter((f) => named.test(f.name) && !f.marked && !notFiles.has(`${op.name}${f.at}`))
        .map((f) => `${op.name}${f.at}`),
    );
    expect(unmarked).toEqual([]);
  });

  test("marked paths are found through optional fields, arrays and unions; such an operation can answer not_found", () => {
    const ops = new Map(OPERATIONS.map((o) => [o.name, o]));
    const read = ops.get("note_read_many");
    const ask = ops.get("ai_ask");
    const move = ops.get("note_move");
    if (!read || !ask || !move) throw new Error("registry");
    expect(markedPaths(read.input, { paths: ["a.md", "b.md"] }).map((m) => m.path)).toEqual(["a.md", "b.md"]);
    expect(markedPaths(ask.input, { question: "q", scope: { kind: "paths", paths: ["c.md"] } }).map((m) => m.path)).toEqual(["c.md"]);
    expect(markedPaths(move.input, { from: "a.md", to: "b.md" }).map((m) => m.path)).toEqual(["a.md", "b.md"]);
    for (const op of OPERATIONS) if (JSON.stringify(op.input).includes(PATH_MARK)) expect(errorsOf(op)).toContain("not_found");
  });
});
