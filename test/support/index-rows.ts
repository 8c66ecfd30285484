import { Database, type SQLQueryBindings } from "bun:sqlite";
import { join } from "node:path";
import type { OpContext } from "../../src/ops/context.ts";

/**
 * Rows of a query on a context's index file, through a read-only connection of its own: tests
 * check what is stored without going through the query modules they may be testing.
 */
export function indexRows<T>(ctx: OpContext, sql: string, ...params: SQLQueryBindings[]): T[] {
  const db = new Database(ctx.vault.indexPath, { readonly: true });
  try {
    return db.query<T, SQLQueryBindings[]>(sql).all(...params);
  } finally {
    db.close();
  }
}

/** True while some connection holds the write lock of the index in `dataDir` (a write transaction is open). */
export function indexWriteLocked(dataDir: string): boolean {
  const db = new Database(join(dataDir, "index.db"));
  try {
    db.run("PRAGMA busy_timeout = 0");
    db.run("BEGIN IMMEDIATE");
    db.run("ROLLBACK");
    return false;
  } catch {
    return true;
  } finally {
    db.close();
  }
}
