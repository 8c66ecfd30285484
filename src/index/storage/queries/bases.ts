import type { Database } from "bun:sqlite";
import type { FileKind } from "../../../vault/scan.ts";
import { LINK_DST_SQL } from "../schema.ts";
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

/** What Bases reads of a note besides its file: its properties' values and its tags. */
export interface NoteContentRow {
  fileId: number;
  /** The frontmatter as a JSON object, or null. */
  frontmatterJson: string | null;
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

const CONTENT = "file_id AS fileId, frontmatter AS frontmatterJson, tags AS tagsJson";

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

  /** The notes with properties or tags. */
  content(): NoteContentRow[] {
    return this.db.query<NoteContentRow, []>(`SELECT ${CONTENT} FROM notes WHERE frontmatter IS NOT NULL OR tags <> '[]'`).all();
  }

  /** The content of these notes only. */
  contentOf(ids: readonly number[]): NoteContentRow[] {
    return this.db.query<NoteContentRow, [string]>(`SELECT ${CONTENT} FROM notes WHERE file_id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids));
  }

  /** The files that may satisfy a condition, or null when the index cannot name fewer than `limit` (candidates.ts). */
  candidateIds(condition: CandidateCondition, limit: number): Set<number> | null {
    return candidateIds(this.db, condition, limit);
  }

  links(): LinkRow[] {
    return this.db
      .query<LinkRow, []>(`SELECT l.src_id AS srcId, l.linkpath, l.display, ${LINK_DST_SQL} AS target, l.embed FROM links l ORDER BY l.src_id, l.ord`)
      .all();
  }
}
