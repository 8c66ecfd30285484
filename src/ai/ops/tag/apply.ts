import { frontmatterTags } from "../../../markdown/frontmatter.ts";
import { tagKey } from "../../../markdown/tags.ts";
import type { NotePlanner } from "../apply/plan.ts";

export interface TagChange {
  tags_added: string[];
  tags_removed: string[];
}

/**
 * How suggested tags go into a note's frontmatter `tags` (always a list, as Obsidian writes it):
 * merge adds those the note lacks and keeps every item it has as written; replace makes the list
 * the suggestions. Inline #tags in the body are the user's text and never touched. A note with
 * nothing to add (or, under replace, nothing suggested) is left alone.
 */
export function tagPlanner(note: { path: string; etag: string; tags: readonly string[] }, mode: "merge" | "replace"): NotePlanner<TagChange> {
  return {
    path: note.path,
    etag: note.etag,
    reason: `Suggested tags: ${note.tags.join(", ")}.`,
    plan(frontmatter) {
      const key = Object.keys(frontmatter).find((k) => /^tags$/i.test(k)) ?? "tags";
      const current = frontmatterTags(frontmatter);
      const has = new Set(current.map(tagKey));
      const wanted = new Set(note.tags.map(tagKey));
      const added = note.tags.filter((t) => !has.has(tagKey(t)));
      const removed = mode === "replace" ? current.filter((t) => !wanted.has(tagKey(t))) : [];
      const detail = { tags_added: added, tags_removed: removed };
      if (note.tags.length === 0 || (added.length === 0 && removed.length === 0)) return { set: {}, detail };
      return { set: { [key]: mode === "replace" ? [...note.tags] : [...writtenItems(frontmatter[key]), ...added] }, detail };
    },
  };
}

/** The items a `tags` value holds as written (one string is one item), kept as they are by a merge. */
function writtenItems(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}
