/**
 * applyPatches: all ops of one call, in order, on the text in memory. Pure: no I/O. The first op
 * that fails throws (its IndxError carries details.op_index) and nothing is returned, so the
 * caller writes nothing.
 */
import { Value } from "@sinclair/typebox/value";
import { IndxError } from "../core/errors.ts";
import {
  appendBody,
  appendToSection,
  insertAfterHeading,
  insertBeforeHeading,
  prependBody,
  type RenamedHeading,
  renameHeading,
  replaceBlock,
  replaceSection,
} from "./body-edits.ts";
import { deleteFrontmatter, setFrontmatter } from "./frontmatter-edit.ts";
import { type PatchOp, PatchOpSchema } from "./schema.ts";

export type { RenamedHeading } from "./body-edits.ts";

export interface PatchResult {
  text: string;
  /** Every heading renamed, in op order, so the caller can rewrite [[Note#Old]] links elsewhere. */
  renamedHeadings: RenamedHeading[];
  /** False when the ops left the text byte-identical. */
  changed: boolean;
}

export function applyPatches(text: string, ops: readonly PatchOp[]): PatchResult {
  if (!Array.isArray(ops)) throw new IndxError("validation_failed", "ops must be an array of patch ops.", { field: "ops" });
  let current = text;
  const renamedHeadings: RenamedHeading[] = [];
  ops.forEach((op, opIndex) => {
    try {
      assertOp(op);
      const r = applyOne(current, op);
      current = r.text;
      if (r.renamed) renamedHeadings.push(r.renamed);
    } catch (e) {
      if (e instanceof IndxError) throw new IndxError(e.code, `Patch op ${opIndex}: ${e.message}`, { ...e.details, op_index: opIndex });
      throw e;
    }
  });
  return { text: current, renamedHeadings, changed: current !== text };
}

/**
 * Ops may come from JSON: check them even though the type says they are valid. Errors are
 * reported against the variant the `op` field names, which says far more than "no union member
 * matched".
 */
function assertOp(op: unknown): asserts op is PatchOp {
  if (Value.Check(PatchOpSchema, op)) return;
  const name = typeof op === "object" && op !== null ? (op as { op?: unknown }).op : undefined;
  const variant = PatchOpSchema.anyOf.find((v) => v.properties.op.const === name);
  if (variant === undefined) {
    const names = PatchOpSchema.anyOf.map((v) => v.properties.op.const);
    throw new IndxError("validation_failed", `Not a patch op: "op" must be one of ${names.join(", ")}.`, { field: "op", allowed: names });
  }
  const errors: { path: string; message: string }[] = [];
  for (const e of Value.Errors(variant, op)) {
    errors.push({ path: e.path || "/", message: e.message });
    if (errors.length >= 5) break;
  }
  const first = errors[0];
  throw new IndxError("validation_failed", `Invalid ${variant.properties.op.const} op${first ? `: ${first.path} ${first.message}` : ""}.`, { errors });
}

function applyOne(text: string, op: PatchOp): { text: string; renamed?: RenamedHeading | null } {
  switch (op.op) {
    case "set_frontmatter":
      return { text: setFrontmatter(text, op.key, op.value) };
    case "delete_frontmatter":
      return { text: deleteFrontmatter(text, op.key) };
    case "append_body":
      return { text: appendBody(text, op.markdown) };
    case "prepend_body":
      return { text: prependBody(text, op.markdown) };
    case "insert_before_heading":
      return { text: insertBeforeHeading(text, op.heading, op.markdown) };
    case "insert_after_heading":
      return { text: insertAfterHeading(text, op.heading, op.markdown) };
    case "replace_section":
      return { text: replaceSection(text, op.heading, op.markdown) };
    case "append_to_section":
      return { text: appendToSection(text, op.heading, op.markdown) };
    case "replace_block":
      return { text: replaceBlock(text, op.block_id, op.markdown) };
    case "rename_heading":
      return renameHeading(text, op.from, op.to);
  }
}
