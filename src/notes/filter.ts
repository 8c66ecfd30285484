import type { Database } from "bun:sqlite";
import { IndxError } from "../core/errors.ts";
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
export function filterNoteIds(db: Database, f: NoteFilterInput): Set<number> | null {
  const sets: Set<number>[] = [];
  for (const raw of f.tag ?? []) {
    const tag = normalizeTag(raw);
    if (!tag) continue;
    const rows = db
      .query<{ id: number }, [string]>("SELECT DISTINCT file_id AS id FROM tags WHERE tag_lower = ?1 OR substr(tag_lower, 1, length(?1) + 1) = ?1 || '/'")
      .all(tag);
    sets.push(new Set(rows.map((r) => r.id)));
  }
  if (f.path_glob) {
    const re = globToRegExp(f.path_glob);
    const rows = db.query<{ id: number; path: string }, []>("SELECT id, path FROM files WHERE kind = 'note'").all();
    sets.push(new Set(rows.filter((r) => re.test(r.path)).map((r) => r.id)));
  }
  for (const [key, value] of Object.entries(f.frontmatter ?? {})) {
    if (/["\\]/.test(key)) throw new IndxError("validation_failed", "Frontmatter keys in filters may not contain quotes or backslashes.", { key });
    const path = `$."${key}"`;
    const rows =
      value === null
        ? db
            .query<{ id: number }, [string]>(
              "SELECT file_id AS id FROM notes WHERE json_extract(frontmatter, ?1) IS NULL OR json_extract(frontmatter, ?1) = ''",
            )
            .all(path)
        : db
            .query<{ id: number }, [string, string | number]>(
              `SELECT file_id AS id FROM notes WHERE frontmatter IS NOT NULL AND (
                 json_extract(frontmatter, ?1) = ?2
                 OR (json_type(frontmatter, ?1) = 'array' AND EXISTS (SELECT 1 FROM json_each(frontmatter, ?1) WHERE value = ?2)))`,
            )
            .all(path, typeof value === "boolean" ? (value ? 1 : 0) : value);
    sets.push(new Set(rows.map((r) => r.id)));
  }
  if (sets.length === 0) return null;
  const [first, ...rest] = sets.sort((a, b) => a.size - b.size);
  return new Set([...first!].filter((id) => rest.every((s) => s.has(id))));
}
