import type { Database } from "bun:sqlite";
import type { FileKind } from "../../vault/scan.ts";

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
    return this.db
      .query<BaseFileRow, []>("SELECT id, path, kind, size, mtime_ms AS mtimeMs, indexed_at || ':' || coalesce(etag, '') AS stamp FROM files ORDER BY path")
      .all();
  }

  properties(): PropertyRow[] {
    return this.db.query<PropertyRow, []>("SELECT file_id AS fileId, key, type, value AS valueJson FROM properties ORDER BY file_id, rowid").all();
  }

  /** The properties of these files only. */
  propertiesOf(ids: readonly number[]): PropertyRow[] {
    return this.db
      .query<PropertyRow, [string]>(
        "SELECT file_id AS fileId, key, type, value AS valueJson FROM properties WHERE file_id IN (SELECT value FROM json_each(?)) ORDER BY file_id, rowid",
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

  /** The ids of the files that satisfy a condition. */
  candidateIds(condition: CandidateCondition): Set<number> {
    const params: Param[] = [];
    const where = conditionSql(condition, params);
    return new Set(
      this.db
        .query<{ id: number }, Param[]>(`SELECT f.id FROM files f WHERE ${where}`)
        .all(...params)
        .map((r) => r.id),
    );
  }

  links(): LinkRow[] {
    return this.db.query<LinkRow, []>("SELECT src_id AS srcId, linkpath, display, dst_path AS target, embed FROM links ORDER BY src_id, ord").all();
  }
}

export type Comparison = "=" | "<" | "<=" | ">" | ">=";

/**
 * A test on one properties row, over the columns the indexer fills for prefiltering: `num` (a
 * number), `text` (a string), `day` (the written day of a date string) or `days` (that day within
 * a range), `json` (the value as JSON), `link` (a string holding a wikilink), `string` (any string).
 */
export type RowTest =
  | { column: "num"; op: Comparison; value: number }
  | { column: "text" | "day"; op: Comparison; value: string }
  | { column: "days"; from: string; to: string }
  | { column: "json"; value: string }
  | { column: "link" | "string" };

/**
 * Which files a filter can keep, as the index can answer it (src/bases/prefilter.ts builds
 * these). `property`: some row of the key (lowercased) whose value is not null and, with tests,
 * passes one of them. `propertyIs`: the file's only row of the key passes one of the tests.
 */
export type CandidateCondition =
  | { kind: "all" | "none" }
  | { kind: "and" | "or"; items: CandidateCondition[] }
  | { kind: "not"; item: CandidateCondition }
  | { kind: "property" | "propertyIs"; key: string; tests: RowTest[] | null }
  | { kind: "hasKey"; key: string }
  | { kind: "tag"; tags: string[] }
  | { kind: "path"; op: "=" | "prefix" | "suffix"; value: string }
  | { kind: "size"; op: Comparison; value: number };

type Param = string | number;

/** A condition as SQL over `files f`, its parameters appended to `params`. */
function conditionSql(c: CandidateCondition, params: Param[]): string {
  const p = (v: Param) => {
    params.push(v);
    return `?${params.length}`;
  };
  switch (c.kind) {
    case "all":
      return "1";
    case "none":
      return "0";
    case "and":
    case "or":
      return `(${c.items.map((i) => conditionSql(i, params)).join(c.kind === "and" ? " AND " : " OR ")})`;
    case "not":
      return `NOT ${conditionSql(c.item, params)}`;
    case "property": {
      const tests = c.tests ? ` AND (${c.tests.map((t) => rowTestSql(t, p)).join(" OR ") || "0"})` : "";
      return `f.id IN (SELECT file_id FROM properties WHERE key_lower = ${p(c.key)} AND value <> 'null'${tests})`;
    }
    case "propertyIs": {
      const tests = c.tests?.map((t) => rowTestSql(t, p)).join(" OR ") || "1";
      return `f.id IN (SELECT file_id FROM properties WHERE key_lower = ${p(c.key)} GROUP BY file_id HAVING count(*) = 1 AND max(${tests}))`;
    }
    case "hasKey":
      return `f.id IN (SELECT file_id FROM properties WHERE key_lower = ${p(c.key.toLowerCase())} AND key = ${p(c.key)})`;
    case "tag":
      // A tag or one nested in it: `x/…` is every text from `x/` up to `x0` ('0' follows '/').
      return `f.id IN (SELECT file_id FROM tags WHERE ${c.tags.map((t) => `tag_lower = ${p(t)} OR (tag_lower >= ${p(`${t}/`)} AND tag_lower < ${p(`${t}0`)})`).join(" OR ") || "0"})`;
    case "path":
      if (c.op === "=") return `f.path = ${p(c.value)}`;
      // A prefix ends with '/', so the range holds exactly the paths that start with it.
      if (c.op === "prefix") return `(f.path >= ${p(c.value)} AND f.path < ${p(nextPrefix(c.value))})`;
      return `substr(f.path, -length(${p(c.value)})) = ?${params.length}`;
    case "size":
      return `f.size ${c.op} ${p(c.value)}`;
  }
}

function rowTestSql(t: RowTest, p: (v: Param) => string): string {
  switch (t.column) {
    case "num":
    case "text":
    case "day":
      return `${t.column} ${t.op} ${p(t.value)}`;
    case "days":
      return `day BETWEEN ${p(t.from)} AND ${p(t.to)}`;
    case "json":
      return `value = ${p(t.value)}`;
    case "link":
      return "instr(text, '[[') > 0";
    case "string":
      return "text IS NOT NULL";
  }
}

/** The least text after every text that starts with `prefix`: its last character moved up by one. */
function nextPrefix(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
