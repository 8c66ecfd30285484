import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { applyPatches } from "../../../src/patch/engine.ts";
import { type PatchOp, PatchOpSchema } from "../../../src/patch/schema.ts";
import { patchError } from "./helpers.ts";

const NOTE = "---\ntitle: T\n---\n# Plan\nintro ^i1\n\n## Tasks\n- a\n\n## Notes\nn\n";

describe("applyPatches", () => {
  test("ops apply in order, each on the result of the previous one", () => {
    const ops: PatchOp[] = [
      { op: "rename_heading", from: "Tasks", to: "Todo" },
      { op: "append_to_section", heading: "Plan > Todo", markdown: "- b" },
      { op: "replace_block", block_id: "i1", markdown: "Intro" },
      { op: "set_frontmatter", key: "status", value: "active" },
      { op: "prepend_body", markdown: "> [!info] top" },
      { op: "insert_before_heading", heading: "## Notes", markdown: "---" },
      { op: "delete_frontmatter", key: "title" },
    ];
    const r = applyPatches(NOTE, ops);
    expect(r.text).toBe("---\nstatus: active\n---\n> [!info] top\n# Plan\nIntro ^i1\n\n## Todo\n- a\n- b\n\n---\n## Notes\nn\n");
    expect(r.renamedHeadings).toEqual([{ from: "Tasks", to: "Todo", level: 2 }]);
    expect(r.changed).toBe(true);
  });
  test("a later op sees the earlier ops' result (renamed heading is found by its new name)", () => {
    const e = patchError(NOTE, { op: "rename_heading", from: "Tasks", to: "Todo" }, { op: "append_to_section", heading: "Tasks", markdown: "x" });
    expect(e.code).toBe("patch_target_not_found");
    expect(e.details?.op_index).toBe(1);
  });
  test("the first failing op throws; nothing is returned, the input is untouched", () => {
    const input = NOTE;
    const e = patchError(
      input,
      { op: "append_body", markdown: "x" },
      { op: "set_frontmatter", key: "a", value: 1 },
      { op: "replace_block", block_id: "missing", markdown: "y" },
      { op: "append_body", markdown: "never" },
    );
    expect(e.code).toBe("patch_target_not_found");
    expect(e.details).toEqual({ block_id: "missing", op_index: 2 });
    expect(input).toBe(NOTE);
  });
  test("no ops, or ops that change nothing: changed is false", () => {
    expect(applyPatches(NOTE, [])).toEqual({ text: NOTE, renamedHeadings: [], changed: false });
    expect(applyPatches(NOTE, [{ op: "append_body", markdown: "" }]).changed).toBe(false);
    expect(applyPatches(NOTE, [{ op: "set_frontmatter", key: "title", value: "T" }]).changed).toBe(false);
  });
  test("ops from JSON are checked against the schema", () => {
    const bad = [
      { op: "nope" },
      { op: "append_body" },
      { op: "append_body", markdown: "x", extra: 1 },
      { op: "insert_after_heading", heading: "", markdown: "x" },
      { op: "replace_block", block_id: 5, markdown: "x" },
    ];
    for (const op of bad) {
      const e = patchError(NOTE, op as unknown as PatchOp);
      expect(e.code).toBe("validation_failed");
      expect(e.details?.op_index).toBe(0);
    }
    expect(() => applyPatches(NOTE, "x" as unknown as PatchOp[])).toThrow("ops must be an array");
    // Errors name the variant's own problem, not "no union member matched".
    expect(patchError(NOTE, { op: "nope" } as unknown as PatchOp).details?.allowed).toContain("replace_block");
    const missing = patchError(NOTE, { op: "set_frontmatter", key: "k" } as unknown as PatchOp);
    expect(missing.message).toBe("Patch op 0: Invalid set_frontmatter op: /value Expected required property.");
  });
  test("error messages and details never carry note text", () => {
    const e = patchError("# Secret plans\n# Secret plans\n", { op: "append_to_section", heading: "x", markdown: "y" });
    expect(e.message).not.toContain("Secret");
  });
});

describe("PatchOpSchema", () => {
  test("every variant accepts a valid op and refuses extra properties", () => {
    const valid: PatchOp[] = [
      { op: "set_frontmatter", key: "k", value: [1] },
      { op: "delete_frontmatter", key: "k" },
      { op: "append_body", markdown: "" },
      { op: "prepend_body", markdown: "x" },
      { op: "insert_before_heading", heading: "H", markdown: "x" },
      { op: "insert_after_heading", heading: "H", markdown: "x" },
      { op: "replace_section", heading: "H", markdown: "x" },
      { op: "append_to_section", heading: "H", markdown: "x" },
      { op: "replace_block", block_id: "b", markdown: "x" },
      { op: "rename_heading", from: "H", to: "J" },
    ];
    for (const op of valid) {
      expect(Value.Check(PatchOpSchema, op)).toBe(true);
      expect(Value.Check(PatchOpSchema, { ...op, x: 1 })).toBe(false);
    }
    expect(PatchOpSchema.anyOf.length as number).toBe(valid.length);
  });
  test("every property is described for agents", () => {
    for (const variant of PatchOpSchema.anyOf) {
      for (const [name, prop] of Object.entries(variant.properties as Record<string, { description?: string }>)) {
        expect({ name, description: typeof prop.description }).toEqual({ name, description: "string" });
      }
    }
  });
});
