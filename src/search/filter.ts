import { IndxError } from "../core/errors.ts";
import type { IndexStore } from "../index/storage/store.ts";
import { globToRegExp } from "../vault/glob.ts";

export interface NoteFilterInput {
  tag?: string[];
  path_glob?: string;
  frontmatter?: Record<string, string | number | boolean | null>;
}

/** Normalises a tag as users type it: `#Inbox/To-Read` → `inbox/to-read`. */
export function normalizeTag(tag: string): string {
  return tag.trim().replace(/^#/, "").toLowerCase();
}

/**
 * The ids of the notes that satisfy every filter, or null when no filter is given.
 * A tag also matches its nested tags (`inbox` matches `inbox/to-read`), as in Obsidian.
 */
export function filterNoteIds(index: IndexStore, f: NoteFilterInput): Set<number> | null {
  const sets: Set<number>[] = [];
  for (const raw of f.tag ?? []) {
    const tag = normalizeTag(raw);
    if (!tag) continue;
    sets.push(new Set(index.tags.noteIdsWith(tag)));
  }
  if (f.path_glob) {
    const re = globToRegExp(f.path_glob);
    // Every file with sections: a PDF in the folder is searched with the notes there (docs/documents.md).
    sets.push(new Set(index.files.withText().flatMap((n) => (re.test(n.path) ? [n.id] : []))));
  }
  for (const [key, value] of Object.entries(f.frontmatter ?? {})) {
    if (/["\\]/.test(key)) throw new IndxError("validation_failed", "Frontmatter keys in filters may not contain quotes or backslashes.", { key });
    sets.push(new Set(index.notes.idsWithProperty(key, value)));
  }
  const [first, ...rest] = sets.sort((a, b) => a.size - b.size);
  if (first === undefined) return null;
  return new Set([...first].filter((id) => rest.every((s) => s.has(id))));
}
