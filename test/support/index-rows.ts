import { Database, type SQLQueryBindings } from "bun:sqlite";
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
