import type { NotePlanner } from "../apply/plan.ts";
import { type FieldSpec, isListKey } from "./fields.ts";

export interface MetadataChange {
  fields_set: string[];
  fields_skipped: { key: string; reason: "existing_under_set_missing" | "validation_failed" }[];
}

export type MetadataApplyMode = "set_missing" | "overwrite" | "merge";

interface NoteFields {
  path: string;
  etag: string;
  fields: Record<string, { value: unknown; problem?: "invalid" | "ungrounded" }>;
}

const isEmpty = (v: unknown) => v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0);
const asList = (v: unknown): unknown[] => (isEmpty(v) ? [] : Array.isArray(v) ? v : [v]);

/**
 * How extracted values go into a note's frontmatter: set_missing writes only keys that are absent
 * or empty (a user's curated value is kept); overwrite writes every value; merge unions list
 * fields with what the note has and treats scalars like set_missing. A field without a value is
 * never written (a null does not erase anything).
 */
export function metadataPlanner(note: NoteFields, specs: readonly FieldSpec[], mode: MetadataApplyMode): NotePlanner<MetadataChange> {
  const withValues = specs.filter((s) => {
    const field = note.fields[s.key];
    return field ? field.value !== null : false;
  });
  return {
    path: note.path,
    etag: note.etag,
    reason: `Suggested values for ${withValues.map((s) => s.key).join(", ") || "no field"}.`,
    plan(frontmatter) {
      const set: Record<string, unknown> = {};
      const detail: MetadataChange = { fields_set: [], fields_skipped: [] };
      for (const spec of specs) {
        const field = note.fields[spec.key];
        if (field?.problem === "invalid") detail.fields_skipped.push({ key: spec.key, reason: "validation_failed" });
        if (!field || field.value === null) continue;
        const current = frontmatter[spec.key];
        if (mode === "overwrite" || isEmpty(current)) set[spec.key] = field.value;
        else if (mode === "merge" && isListKey(spec)) {
          const items = asList(current);
          set[spec.key] = [...items, ...asList(field.value).filter((v) => !items.some((i) => Bun.deepEquals(i, v)))];
        } else detail.fields_skipped.push({ key: spec.key, reason: "existing_under_set_missing" });
        if (spec.key in set && !Bun.deepEquals(current, set[spec.key])) detail.fields_set.push(spec.key);
      }
      return { set, detail };
    },
  };
}
