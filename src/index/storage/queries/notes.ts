import type { Database } from "bun:sqlite";
import type { NoteStatus } from "../rows.ts";

/** A note as note_list shows it. JSON columns stay text: callers parse only the page they return. */
export interface NoteSummary {
  id: number;
  path: string;
  title: string;
  /** JSON array of tags, first spelling of each. */
  tagsJson: string;
  /** JSON array of aliases. */
  aliasesJson: string;
  /** JSON object, or null without (valid) frontmatter. */
  frontmatterJson: string | null;
  size: number;
  mtimeMs: number;
}

export interface NoteHead {
  id: number;
  title: string;
  tagsJson: string;
}

/** A note the index could not fully read: too large, binary, or with invalid frontmatter. */
export interface NoteProblem {
  path: string;
  status: NoteStatus;
  frontmatterError: string | null;
}

export type PropertyValue = string | number | boolean | null;

const SUMMARY_SQL = `SELECT f.id, f.path, n.title, n.tags AS tagsJson, n.aliases AS aliasesJson, n.frontmatter AS frontmatterJson, f.size, f.mtime_ms AS mtimeMs
  FROM files f JOIN notes n ON n.file_id = f.id WHERE f.kind = 'note'`;
const ORDER_BY = { path: "f.path", mtime: "f.mtime_ms DESC, f.path" } as const;

/** Notes and their frontmatter. */
export class NoteQueries {
  constructor(private readonly db: Database) {}

  count(): number {
    return this.db.query<{ n: number }, []>("SELECT count(*) AS n FROM notes").get()?.n ?? 0;
  }

  list(sort: "path" | "mtime"): NoteSummary[] {
    return this.db.query<NoteSummary, []>(`${SUMMARY_SQL} ORDER BY ${ORDER_BY[sort]}`).all();
  }

  /**
   * One page of `list(sort)`, read alone: the path index walks to it, and by mtime SQLite keeps
   * only the first offset + limit rows while it scans (docs/decisions.md, "Writes under load").
   */
  listPage(sort: "path" | "mtime", offset: number, limit: number): NoteSummary[] {
    return this.db.query<NoteSummary, [number, number]>(`${SUMMARY_SQL} ORDER BY ${ORDER_BY[sort]} LIMIT ? OFFSET ?`).all(limit, offset);
  }

  /** How many rows `list` returns. */
  listCount(): number {
    return this.db.query<{ n: number }, []>("SELECT count(*) AS n FROM files f JOIN notes n ON n.file_id = f.id WHERE f.kind = 'note'").get()?.n ?? 0;
  }

  byPath(path: string): NoteHead | null {
    return this.db
      .query<NoteHead, [string]>("SELECT f.id, n.title, n.tags AS tagsJson FROM files f JOIN notes n ON n.file_id = f.id WHERE f.path = ?")
      .get(path);
  }

  problems(): NoteProblem[] {
    return this.db
      .query<NoteProblem, []>(
        `SELECT f.path, n.status, n.fm_error AS frontmatterError FROM notes n JOIN files f ON f.id = n.file_id
          WHERE n.status <> 'ok' OR n.fm_error IS NOT NULL ORDER BY f.path`,
      )
      .all();
  }

  /**
   * Ids of the notes whose frontmatter property `key` equals `value` (or, for a list, holds it);
   * null matches a missing or empty property. `key` may not hold quotes or backslashes.
   */
  idsWithProperty(key: string, value: PropertyValue): number[] {
    const path = `$."${key}"`;
    const rows =
      value === null
        ? this.db
            .query<{ id: number }, [string]>(
              "SELECT file_id AS id FROM notes WHERE json_extract(frontmatter, ?1) IS NULL OR json_extract(frontmatter, ?1) = ''",
            )
            .all(path)
        : this.db
            .query<{ id: number }, [string, string | number]>(
              `SELECT file_id AS id FROM notes WHERE frontmatter IS NOT NULL AND (
                 json_extract(frontmatter, ?1) = ?2
                 OR (json_type(frontmatter, ?1) = 'array' AND EXISTS (SELECT 1 FROM json_each(frontmatter, ?1) WHERE value = ?2)))`,
            )
            .all(path, typeof value === "boolean" ? (value ? 1 : 0) : value);
    return rows.map((r) => r.id);
  }
}
