import type { Database } from "bun:sqlite";
import type { FileKind } from "../../vault/scan.ts";
import { type CandidateCondition, candidateIds } from "./candidates.ts";

/** A file as a base row candidate. */
export interface BaseFileRow {
  id: number;
  path: string;
  kind: FileKind;
  size: number;
  mtimeMs: number;
  /** Changes whenever the file's rows are written again. */
  stamp: string;
}

/** One top-level frontmatter property: its JSON value and the type the indexer inferred. */
export interface PropertyRow {
  fileId: number;
  key: string;
  type: string;
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
    return this.db.query<BaseFileRow, []>("SELECT id, path, kind, size, mtime_ms AS mtimeMs, coalesce(etag, '') AS stamp FROM files ORDER BY path").all();
  }

  properties(): PropertyRow[] {
    return this.db.query<PropertyRow, []>("SELECT file_id AS fileId, key, type, value AS valueJson FROM properties ORDER BY file_id, ord").all();
  }

  /** The properties of these files only. */
  propertiesOf(ids: readonly number[]): PropertyRow[] {
    return this.db
      .query<PropertyRow, [string]>(
        "SELECT file_id AS fileId, key, type, value AS valueJson FROM properties WHERE file_id IN (SELECT value FROM json_each(?)) ORDER BY file_id, ord",
      )
      .all(JSON.stringify(ids));
  }

  tags(): TagsRow[] {
    return this.db.query<TagsRow, []>("SELECT file_id AS fileId, tags AS tagsJson FROM notes WHERE tags <> '[]'").all();
  }

  /** The tags of these files only. */
  tagsOf(ids: readonly number[]): TagsRow[] {
    return this.db
      .query<TagsRow, [string]>("SELECT file_id AS fileId, tags AS tagsJson FROM notes WHERE tags <> '[]' AND file_id IN (SELECT value FROM json_each(?))")
      .all(JSON.stringify(ids));
  }

  /** The files that may satisfy a condition, or null when the index cannot name fewer than `limit` (candidates.ts). */
  candidateIds(condition: CandidateCondition, limit: number): Set<number> | null {
    return candidateIds(this.db, condition, limit);
  }

  links(): LinkRow[] {
    return this.db.query<LinkRow, []>("SELECT src_id AS srcId, linkpath, display, dst_path AS target, embed FROM links ORDER BY src_id, ord").all();
  }
}
