import type { Database } from "bun:sqlite";

export interface TagCount {
  /** The spelling shown: the most used one, as Obsidian's tag pane does. */
  tag: string;
  tagLower: string;
  /** Notes carrying the tag. */
  count: number;
}

/** A note whose frontmatter has a key spelled `tag` in some case (Obsidian's legacy property). */
export interface LegacyTagNote {
  path: string;
  frontmatterJson: string;
}

/** Matches a lowercased tag and its nested tags (`inbox` matches `inbox/to-read`), as in Obsidian. */
const TAG_OR_NESTED = "tag_lower = ?1 OR substr(tag_lower, 1, length(?1) + 1) = ?1 || '/'";

/** Tags, case-insensitive: callers pass them lowercased. */
export class TagQueries {
  constructor(private readonly db: Database) {}

  /** Tags with their note counts; `excluding` leaves those notes out (the AI deny globs: a tag only they use is not listed). */
  counts(excluding: readonly number[] = []): TagCount[] {
    return this.db
      .query<TagCount, [string]>(
        `SELECT t.tag_lower AS tagLower,
                (SELECT s.tag FROM tags s WHERE s.tag_lower = t.tag_lower AND s.file_id NOT IN (SELECT value FROM json_each(?1))
                  GROUP BY s.tag ORDER BY sum(s.uses) DESC, s.tag LIMIT 1) AS tag,
                count(DISTINCT t.file_id) AS count
           FROM tags t WHERE t.file_id NOT IN (SELECT value FROM json_each(?1)) GROUP BY t.tag_lower`,
      )
      .all(JSON.stringify(excluding));
  }

  /** Ids of the notes carrying the tag or one nested in it. */
  noteIdsWith(tagLower: string): number[] {
    return this.db
      .query<{ id: number }, [string]>(`SELECT DISTINCT file_id AS id FROM tags WHERE ${TAG_OR_NESTED}`)
      .all(tagLower)
      .map((r) => r.id);
  }

  /** Paths of the notes carrying the tag or one nested in it. */
  notePathsWith(tagLower: string): string[] {
    return this.db
      .query<{ path: string }, [string]>(`SELECT DISTINCT f.path FROM tags t JOIN files f ON f.id = t.file_id WHERE ${TAG_OR_NESTED}`)
      .all(tagLower)
      .map((r) => r.path);
  }

  /**
   * Notes whose frontmatter may hold a legacy `tag` property. Obsidian no longer reads it, so
   * the tags table has no rows for it; callers check the parsed value.
   */
  legacyTagNotes(): LegacyTagNote[] {
    return this.db
      .query<LegacyTagNote, []>(
        `SELECT f.path, n.frontmatter AS frontmatterJson FROM notes n JOIN files f ON f.id = n.file_id
          WHERE n.frontmatter IS NOT NULL AND instr(lower(n.frontmatter), '"tag":') > 0`,
      )
      .all();
  }
}
