import type { NotePlanner } from "../apply/plan.ts";

export type ExtractApplyMode = "set_missing" | "overwrite" | "merge";

/**
 * How one note's extracted data goes into its frontmatter, as the value of `key`: set_missing
 * (default) writes only a key the note lacks or leaves empty, so curated values are kept;
 * overwrite replaces the value; merge appends to a list the items it does not already hold
 * (compared by value), and otherwise behaves as set_missing. A repeat is therefore no change.
 */
export function extractPlanner(record: { path: string; etag: string; data: unknown }, key: string, mode: ExtractApplyMode): NotePlanner<{ key: string }> {
  const detail = { key };
  return {
    path: record.path,
    etag: record.etag,
    reason: `Extracted data for the frontmatter key ${key}.`,
    plan(frontmatter) {
      const current = Object.hasOwn(frontmatter, key) ? frontmatter[key] : undefined;
      if (mode === "overwrite" || current === undefined || current === null) return { set: { [key]: record.data }, detail };
      if (mode === "merge" && Array.isArray(current) && Array.isArray(record.data)) {
        const added = record.data.filter((item) => !current.some((has) => Bun.deepEquals(has, item)));
        return { set: added.length ? { [key]: [...current, ...added] } : {}, detail };
      }
      return { set: {}, detail };
    },
  };
}
