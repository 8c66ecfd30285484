import type { Database } from "bun:sqlite";
import type { FileKind } from "../../vault/scan.ts";

/** A file as a base row candidate. */
export interface BaseFileRow {
  id: number;
  path: string;
  kind: FileKind;
  size: number;
  mtimeMs: number;
}

/** One top-level frontmatter property: its JSON value and the type the indexer inferred. */
export interface PropertyRow {
  fileId: number;
  key: string;
  valueJson: string;
}

export interface TagsRow {
  fileId: number;
  /** JSON array of tags, first spelling of each. */
  tagsJson: string;
}

export interface LinkRow {
  srcId: number;
  linkpath: string;
  display: string | null;
  target: string | null;
  embed: number;
}

/** What Bases reads: every file with its properties, tags and links, loaded in bulk. */
export class BaseQueries {
  constructor(private readonly db: Database) {}

  /**
   * Changes whenever the index does: commits of other connections move data_version, this
   * connection's own writes move total_changes(). A snapshot is reusable while it stays the same.
   */
  generation(): string {
    const row = this.db.query<{ v: number; c: number }, []>("SELECT (SELECT data_version FROM pragma_data_version) AS v, total_changes() AS c").get();
    return `${row?.v}:${row?.c}`;
  }

  files(): BaseFileRow[] {
    return this.db.query<BaseFileRow, []>("SELECT id, path, kind, size, mtime_ms AS mtimeMs FROM files ORDER BY path").all();
  }

  /** Every note's frontmatter properties, in the order written (read from notes.frontmatter: stored once). */
  properties(): PropertyRow[] {
    return this.db
      .query<PropertyRow, []>(
        `SELECT n.file_id AS fileId, j.key,
                CASE j.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'null' THEN 'null' ELSE json_quote(j.value) END AS valueJson
           FROM notes n, json_each(n.frontmatter) j WHERE n.frontmatter IS NOT NULL ORDER BY n.file_id, j.id`,
      )
      .all();
  }

  tags(): TagsRow[] {
    return this.db.query<TagsRow, []>("SELECT file_id AS fileId, tags AS tagsJson FROM notes WHERE tags <> '[]'").all();
  }

  links(): LinkRow[] {
    return this.db.query<LinkRow, []>("SELECT src_id AS srcId, linkpath, display, dst_path AS target, embed FROM links ORDER BY src_id, ord").all();
  }
}
