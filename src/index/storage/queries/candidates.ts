import type { Database } from "bun:sqlite";
import { PROPERTY_KEY_SQL } from "../schema.ts";

export type Comparison = "=" | "<" | "<=" | ">" | ">=";

/**
 * A test on one properties row, over the columns the indexer fills for prefiltering: `num` (a
 * number), `text` (a string that is not a wikilink), `day` (the written day of a date string) or
 * `days` (that day within a range), `bool` (a boolean), `link` (a wikilink), `string` (any string
 * that is not a wikilink).
 */
export type RowTest =
  | { column: "num"; op: Comparison; value: number }
  | { column: "text" | "day"; op: Comparison; value: string }
  | { column: "days"; from: string; to: string }
  | { column: "bool"; value: boolean }
  | { column: "link" | "string" };

/**
 * Which files a filter can keep, as the index can answer it (src/bases/prefilter.ts builds
 * these). `property`: some row of the key (lowercased) that, with tests, passes one of them;
 * without tests any row of the key, a null value's too (the index keeps no column that tells). `tag`: a tag or one nested in it (lowercased). A path `prefix` ends with '/'.
 */
export type CandidateCondition =
  | { kind: "all" | "none" }
  | { kind: "and" | "or"; items: CandidateCondition[] }
  | { kind: "not"; item: CandidateCondition }
  | { kind: "property"; key: string; tests: RowTest[] | null }
  | { kind: "hasKey"; key: string }
  | { kind: "tag"; tags: string[] }
  | { kind: "path"; op: "=" | "prefix" | "suffix"; value: string }
  | { kind: "size"; op: Comparison; value: number };

type Param = string | number;

/**
 * The ids of a superset of the files that satisfy `condition`, or null for "any file". Each part
 * is read with a bound of `limit` rows: a part that matches more is not selective enough to be
 * worth more than the filter itself and counts as any file, so the reads never cost more than
 * `limit` index entries a part. A negation counts as any file too (its complement would have to be
 * read whole).
 */
export function candidateIds(db: Database, condition: CandidateCondition, limit: number): Set<number> | null {
  const ids = (sql: string, params: Param[]): Set<number> | null => {
    const rows = db.query<{ id: number }, Param[]>(`${sql} LIMIT ${limit + 1}`).all(...params);
    return rows.length > limit ? null : new Set(rows.map((r) => r.id));
  };
  const visit = (c: CandidateCondition): Set<number> | null => {
    switch (c.kind) {
      case "all":
      case "not":
        return null;
      case "none":
        return new Set();
      case "and":
        return intersection(c.items.map(visit));
      case "or":
        return union(
          c.items.map((i) => () => visit(i)),
          limit,
        );
      case "property": {
        const ofKey = "SELECT file_id AS id FROM properties WHERE key_lower = ?";
        if (!c.tests) return ids(ofKey, [c.key]);
        return union(
          c.tests.map((t) => () => {
            const [test, params] = rowTest(t);
            return ids(`${ofKey} AND ${test}`, [c.key, ...params]);
          }),
          limit,
        );
      }
      case "hasKey":
        return ids(`SELECT file_id AS id FROM properties WHERE key_lower = ? AND ${PROPERTY_KEY_SQL} = ?`, [c.key.toLowerCase(), c.key]);
      case "tag":
        // `x/…` is every text from `x/` up to `x0` ('0' follows '/').
        return union(
          c.tags.map((t) => () => ids("SELECT file_id AS id FROM tags WHERE tag_lower = ? OR (tag_lower >= ? AND tag_lower < ?)", [t, `${t}/`, `${t}0`])),
          limit,
        );
      case "path":
        if (c.op === "=") return ids("SELECT id FROM files WHERE path = ?", [c.value]);
        if (c.op === "prefix") return ids("SELECT id FROM files WHERE path >= ? AND path < ?", [c.value, nextPrefix(c.value)]);
        return ids("SELECT id FROM files WHERE substr(path, -length(?1)) = ?1", [c.value]);
      case "size":
        return ids(`SELECT id FROM files WHERE size ${c.op} ?`, [c.value]);
    }
  };
  return visit(condition);
}

function rowTest(t: RowTest): [string, Param[]] {
  switch (t.column) {
    case "num":
    case "text":
    case "day":
      return [`${t.column} ${t.op} ?`, [t.value]];
    case "days":
      return ["day BETWEEN ? AND ?", [t.from, t.to]];
    case "bool":
      return ["bool = ?", [Number(t.value)]];
    case "link":
      return ["link IS NOT NULL", []];
    case "string":
      return ["text IS NOT NULL", []];
  }
}

/** Every file in each set; a part that could be any file narrows nothing. */
function intersection(sets: (Set<number> | null)[]): Set<number> | null {
  const [smallest, ...rest] = sets.filter((s) => s !== null).sort((a, b) => a.size - b.size);
  if (smallest === undefined) return null;
  return new Set([...smallest].filter((id) => rest.every((s) => s.has(id))));
}

/** Every file of any part, or null once one part could be any file or the union grows past `limit` (later parts unread). */
function union(parts: (() => Set<number> | null)[], limit: number): Set<number> | null {
  const out = new Set<number>();
  for (const part of parts) {
    const s = part();
    if (s === null) return null;
    for (const id of s) out.add(id);
    if (out.size > limit) return null;
  }
  return out;
}

/** The least text after every text that starts with `prefix`: its last character moved up by one. */
function nextPrefix(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
