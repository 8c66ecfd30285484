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
  // `+`: the membership is a test on each row, never what drives a join. Offered as an index,
  // it made SQLite walk every visible note and look each up in a json_each list (a search's
  // sections: 94 ms instead of 2 at 20,000 notes).
  db.run("CREATE TEMP VIEW IF NOT EXISTS files AS SELECT * FROM main.files WHERE +id IN (SELECT id FROM temp.visible)");
  for (const [table, key] of Object.entries(FILE_TABLES))
    db.run(`CREATE TEMP VIEW IF NOT EXISTS ${table} AS SELECT * FROM main.${table} WHERE +${key} IN (SELECT id FROM temp.visible)`);
  db.run(
    `CREATE TEMP VIEW IF NOT EXISTS links AS SELECT ${LINK_COLUMNS},
       CASE WHEN l.dst_path IS NULL OR (${LINK_DST_SQL}) IN (SELECT path FROM temp.visible) THEN l.dst_path END AS dst_path
       FROM main.links l WHERE +l.src_id IN (SELECT id FROM temp.visible)`,
  );
}

/**
 * What a grant's connection shows, kept in step with `temp.visible`: after the index changed,
 * only the files added, removed or renamed since are tested and written (an edit of a note
 * changes none), and a path once tested is not tested again.
 */
export class VisibleFiles {
  /** The visible files: id → path, as `temp.visible` holds them. */
  private shown = new Map<number, string>();
  /** The predicate's verdict per path (a rename or a new file adds one). */
  private readonly verdicts = new Map<string, boolean>();

  constructor(private readonly canRead: (path: string) => boolean) {}

  get ids(): ReadonlySet<number> {
    return new Set(this.shown.keys());
  }

  /** Brings `temp.visible` in line with `main.files`. */
  sync(db: Database): void {
    const rows = db.query<{ id: number; path: string }, []>("SELECT id, path FROM main.files").values() as [number, string][];
    const next = new Map<number, string>();
    const seen = new Set<string>();
    for (const [id, path] of rows) {
      seen.add(path);
      let ok = this.verdicts.get(path);
      if (ok === undefined) {
        ok = this.canRead(path);
        this.verdicts.set(path, ok);
      }
      if (ok) next.set(id, path);
    }
    for (const path of this.verdicts.keys()) if (!seen.has(path)) this.verdicts.delete(path);
    const gone = [...this.shown].filter(([id, path]) => next.get(id) !== path).map(([id]) => id);
    const added = [...next].filter(([id, path]) => this.shown.get(id) !== path);
    if (gone.length || added.length)
      db.transaction(() => {
        const remove = db.query<void, [number]>("DELETE FROM temp.visible WHERE id = ?");
        for (const id of gone) remove.run(id);
        const insert = db.query<void, [number, string]>("INSERT INTO temp.visible (id, path) VALUES (?, ?)");
        for (const [id, path] of added) insert.run(id, path);
      })();
    this.shown = next;
  }
}

/** Commits of other connections move it: the visible set is filled again once it changes. */
export function dataVersion(db: Database): number {
  return db.query<{ v: number }, []>("SELECT data_version AS v FROM pragma_data_version").get()?.v ?? 0;
}
