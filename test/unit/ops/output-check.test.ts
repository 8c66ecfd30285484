import { describe, expect, test } from "bun:test";
import { noteExists } from "../../../src/notes/ops.ts";
import { vaultSearch } from "../../../src/search/ops.ts";
import { assertOutput, assertRestOutput } from "../../support/ops.ts";

/** The guard every op-calling test relies on: it must fail, and say where, when an output drifts. */
describe("assertOutput", () => {
  test("accepts an output that matches the schema", () => {
    expect(() => assertOutput(noteExists, { path: "A.md", exists: true, kind: "note" }, "test")).not.toThrow();
  });

  test("names the operation, the path and the value of a mismatch", () => {
    expect(() => assertOutput(noteExists, { path: "A.md", exists: "yes", kind: null }, "test")).toThrow(
      'note_exists via test: the output does not match its output schema\n  /exists: Expected boolean, got "yes"',
    );
  });

  test("a property the schema does not declare is drift too, however deep", () => {
    expect(() => assertOutput(noteExists, { path: "A.md", exists: false, kind: null, size: 3 }, "test")).toThrow("/size: not in the schema");
    const hit = { id: "A.md", type: "note", path: "A.md", title: "A", heading: null, heading_path: [], chunk_id: "A.md#0", line: 1, snippet: "", score: 1 };
    Object.assign(hit, { reason: "", matched_in: [], tags: [], meta: { aliases: ["a"], color: "red" } });
    const search = { results: [hit], mode_requested: "lexical", mode_used: "lexical", limit: 10, next_cursor: null, warnings: [] };
    expect(() => assertOutput(vaultSearch, search, "test")).toThrow(
      "vault_search via test: the output does not match its output schema\n  /results/0/meta/color: not in the schema",
    );
  });

  test("REST: a successful answer is checked against its route's operation; errors are not", () => {
    expect(() => assertRestOutput("GET", "/v1/notes/A.md?include=outline", { ok: true, data: { path: "A.md" } })).toThrow("note_read via GET /v1/notes/");
    expect(() => assertRestOutput("HEAD", "/v1/notes/A.md", { ok: false, error: { code: "not_found" } })).not.toThrow();
  });
});
