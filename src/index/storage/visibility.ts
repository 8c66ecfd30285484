import type { Database } from "bun:sqlite";
import { LINK_DST_SQL } from "./schema.ts";

/**
 * A connection that sees only what a folder grant may read (docs/permissions.md, "One choke
 * point"). Temporary views named like the data tables shadow them on this connection (SQLite
 * looks in `temp` before `main` for a name without a schema), so every query of
 * src/index/storage/queries/ — counts, lists, joins, Bases rows, the link graph — reads the
 * grant's part of the index without a change of its own. `temp.visible` holds the ids and paths
 * the grant may read; a link into a file outside it reads as unresolved. The full-text tables
 * cannot be views (MATCH and bm25 need the table): queries/fts.ts narrows its rowids to
 * `temp.visible` itself.
 */
const FILE_TABLES: Record<string, string> = {
  notes: "file_id",
  tags: "file_id",
  properties: "file_id",
  blocks: "file_id",
  chunks: "file_id",
};

const LINK_COLUMNS = "src_id, ord, embed, syntax, linkpath, subpath, display, raw, line, col_offset, prop, rel, target_key";

export function installVisibility(db: Database): void {
  db.run("CREATE TEMP TABLE IF NOT EXISTS visible (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE)");
  db.run("CREATE TEMP VIEW IF NOT EXISTS files AS SELECT * FROM main.files WHERE id IN (SELECT id FROM temp.visible)");
  for (const [table, key] of Object.entries(FILE_TABLES))
    db.run(`CREATE TEMP VIEW IF NOT EXISTS ${table} AS SELECT * FROM main.${table} WHERE ${key} IN (SELECT id FROM temp.visible)`);
  db.run(
    `CREATE TEMP VIEW IF NOT EXISTS links AS SELECT ${LINK_COLUMNS},
       CASE WHEN l.dst_path IS NULL OR (${LINK_DST_SQL}) IN (SELECT path FROM temp.visible) THEN l.dst_path END AS dst_path
       FROM main.links l WHERE l.src_id IN (SELECT id FROM temp.visible)`,
  );
}

/** Fills `temp.visible` with the files of the index `canRead` allows; returns their ids. */
export function fillVisible(db: Database, canRead: (path: string) => boolean): Set<number> {
  const rows = db.query<{ id: number; path: string }, []>("SELECT id, path FROM main.files").all();
  const ids = new Set<number>();
  db.transaction(() => {
    db.run("DELETE FROM temp.visible");
    const insert = db.query<void, [number, string]>("INSERT INTO temp.visible (id, path) VALUES (?, ?)");
    for (const { id, path } of rows)
      if (canRead(path)) {
        insert.run(id, path);
        ids.add(id);
      }
  })();
  return ids;
}

/** Commits of other connections move it: the visible set is filled again once it changes. */
export function dataVersion(db: Database): number {
  return db.query<{ v: number }, []>("SELECT data_version AS v FROM pragma_data_version").get()?.v ?? 0;
}
