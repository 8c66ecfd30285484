import type { NotePlanner } from "../apply/plan.ts";

export type ExtractApplyMode = "set_missing" | "overwrite" | "merge";

/** A value set_missing may fill: absent, null, "" or [] (as ai_metadata counts it). */
const isEmpty = (v: unknown) => v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0);

/**
 * How one note's extracted data goes into its frontmatter, as the value of `key`: set_missing
 * (default) writes only a key that is absent or empty, so a curated value is kept; overwrite
 * replaces the value; merge appends to a list the items it does not hold yet (compared by value)
 * and otherwise behaves as set_missing. A repeat is therefore no change.
 */
export function extractPlanner(record: { path: string; etag: string; data: unknown }, key: string, mode: ExtractApplyMode): NotePlanner<{ key: string }> {
  const detail = { key };
  return {
    path: record.path,
    etag: record.etag,
    reason: `Extracted data for the frontmatter key ${key}.`,
    plan(frontmatter) {
      const current = Object.hasOwn(frontmatter, key) ? frontmatter[key] : undefined;
      if (mode === "overwrite" || isEmpty(current)) return { set: { [key]: record.data }, detail };
      if (mode === "merge" && Array.isArray(current) && Array.isArray(record.data)) {
        const merged = [...current];
        for (const item of record.data) if (!merged.some((has) => Bun.deepEquals(has, item))) merged.push(item);
        return { set: merged.length > current.length ? { [key]: merged } : {}, detail };
      }
      return { set: {}, detail };
    },
  };
}
