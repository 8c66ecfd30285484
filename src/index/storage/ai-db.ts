import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { IndxError } from "../../core/errors.ts";
import { BUSY_TIMEOUT_MS } from "./store.ts";

/** A cached result, decoded from its JSON column here, behind the seam (src/index/storage/json-columns.ts). */
export interface CachedRow {
  value: unknown;
  expiresAt: number;
}

export interface CacheStats {
  entries: number;
  hits_24h: number;
  size_bytes: number;
}

const DAY_MS = 86_400_000;

/**
 * ai-cache.db in the data folder: cached AI results (with the notes each one read, so an edit
 * drops exactly the entries that read it) and the spend ledger per UTC day. What they mean (keys,
 * TTLs, caps) is decided in src/ai/cache.ts and src/providers/spend.ts; several processes share the file.
 */
export class AiDb {
  private readonly db: Database;

  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    this.db = new Database(join(dataDir, "ai-cache.db"), { create: true });
    this.db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`); // before journal_mode: see connect() in store.ts
    this.db.run("PRAGMA journal_mode = WAL");
    // As the index (docs/stack.md): every model request adds to the ledger, and under FULL each of
    // those commits was an fsync — a few ms per note of an ai_tag run. NORMAL keeps every commit
    // through a process crash; only an OS crash or power loss can drop the last few.
    this.db.run("PRAGMA synchronous = NORMAL");
    this.db.run(`CREATE TABLE IF NOT EXISTS entries (
      key        TEXT PRIMARY KEY,
      value      TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    )`);
    this.db.run("CREATE TABLE IF NOT EXISTS entry_paths (key TEXT NOT NULL, path TEXT NOT NULL, PRIMARY KEY (path, key)) WITHOUT ROWID");
    this.db.run("CREATE TABLE IF NOT EXISTS hits (at INTEGER NOT NULL)");
    this.db.run("CREATE TABLE IF NOT EXISTS spend (day TEXT PRIMARY KEY, usd REAL NOT NULL, calls INTEGER NOT NULL)");
    // A request's worst case, held from before it is sent until it is settled (src/providers/spend.ts).
    this.db.run("CREATE TABLE IF NOT EXISTS spend_held (id INTEGER PRIMARY KEY, day TEXT NOT NULL, usd REAL NOT NULL, at INTEGER NOT NULL)");
  }

  get(key: string, now: number): CachedRow | null {
    const row = this.db
      .query<{ valueJson: string; expiresAt: number }, [string]>("SELECT value AS valueJson, expires_at AS expiresAt FROM entries WHERE key = ?")
      .get(key);
    if (!row) return null;
    if (row.expiresAt <= now) {
      this.delete([key]);
      return null;
    }
    this.db.run("INSERT INTO hits (at) VALUES (?)", [now]);
    return { value: JSON.parse(row.valueJson), expiresAt: row.expiresAt };
  }

  /** Stores an entry (replacing one under the key) with the paths it read, then trims to `maxEntries`, oldest first. */
  put(key: string, value: unknown, paths: readonly string[], now: number, expiresAt: number, maxEntries: number): void {
    this.db.transaction(() => {
      this.db.run("DELETE FROM entry_paths WHERE key = ?", [key]);
      this.db.run("INSERT OR REPLACE INTO entries (key, value, created_at, expires_at) VALUES (?, ?, ?, ?)", [key, JSON.stringify(value), now, expiresAt]);
      const add = this.db.query("INSERT OR IGNORE INTO entry_paths (key, path) VALUES (?, ?)");
      for (const p of paths) add.run(key, p);
      const old = this.db
        .query<{ key: string }, [number, number]>(
          "SELECT key FROM entries WHERE expires_at <= ?1 UNION SELECT key FROM (SELECT key FROM entries ORDER BY created_at DESC LIMIT -1 OFFSET ?2)",
        )
        .all(now, maxEntries);
      if (old.length) this.deleteIn(old.map((r) => r.key));
      this.db.run("DELETE FROM hits WHERE at < ?", [now - DAY_MS]);
    })();
  }

  /**
   * Drops the entries that read any of these notes. IMMEDIATE, as IndexStore.transaction: a
   * deferred one reads first, and its upgrade to a writer fails at once with SQLITE_BUSY
   * (busy_timeout does not apply) when another process — a reader worker, `indx mcp` beside
   * `serve` — wrote meanwhile; the index update that called it then failed after it committed.
   */
  invalidatePaths(paths: readonly string[]): number {
    return this.db
      .transaction(() => {
        const keys = this.db
          .query<{ key: string }, [string]>("SELECT DISTINCT key FROM entry_paths WHERE path IN (SELECT value FROM json_each(?))")
          .all(JSON.stringify(paths))
          .map((r) => r.key);
        if (keys.length) this.deleteIn(keys);
        return keys.length;
      })
      .immediate();
  }

  stats(now: number): CacheStats {
    const row = this.db
      .query<CacheStats, [number]>(
        "SELECT (SELECT count(*) FROM entries) AS entries, (SELECT count(*) FROM hits WHERE at >= ?) AS hits_24h, (SELECT coalesce(sum(length(value)), 0) FROM entries) AS size_bytes",
      )
      .get(now - DAY_MS);
    return row ?? { entries: 0, hits_24h: 0, size_bytes: 0 };
  }

  addSpend(day: string, usd: number): void {
    this.db.run("INSERT INTO spend (day, usd, calls) VALUES (?1, ?2, 1) ON CONFLICT (day) DO UPDATE SET usd = usd + ?2, calls = calls + 1", [day, usd]);
  }

  spendOn(day: string): { usd: number; calls: number } {
    return this.db.query<{ usd: number; calls: number }, [string]>("SELECT usd, calls FROM spend WHERE day = ?").get(day) ?? { usd: 0, calls: 0 };
  }

  /** What requests still in flight hold on a day (their worst case). */
  heldOn(day: string): number {
    return this.db.query<{ usd: number }, [string]>("SELECT coalesce(sum(usd), 0) AS usd FROM spend_held WHERE day = ?").get(day)?.usd ?? 0;
  }

  /**
   * Holds `usd` on a day when what is spent and held there is below `cap` (null: no cap), in one
   * write transaction taken before reading (BEGIN IMMEDIATE): two processes never both see the
   * room the first one takes. Returns the hold's id, or null with nothing held when the cap is reached.
   */
  hold(day: string, usd: number, cap: number | null, now: number): { id: number } | { refused: number } {
    return this.db
      .transaction(() => {
        const spent = this.spendOn(day).usd + this.heldOn(day);
        if (cap !== null && spent >= cap) return { refused: spent };
        const row = this.db
          .query<{ id: number }, [string, number, number]>("INSERT INTO spend_held (day, usd, at) VALUES (?, ?, ?) RETURNING id")
          .get(day, usd, now);
        if (!row) throw new IndxError("internal", "INSERT … RETURNING id returned no row for a spend hold");
        return { id: row.id };
      })
      .immediate();
  }

  /** Replaces a hold with what the request cost (one request on the hold's day). */
  settle(id: number, usd: number): void {
    this.db
      .transaction(() => {
        const held = this.db.query<{ day: string }, [number]>("DELETE FROM spend_held WHERE id = ? RETURNING day").get(id);
        if (held) this.addSpend(held.day, usd);
      })
      .immediate();
  }

  close(): void {
    this.db.close();
  }

  private delete(keys: string[]): void {
    this.db.transaction(() => this.deleteIn(keys))();
  }

  private deleteIn(keys: string[]): void {
    const json = JSON.stringify(keys);
    this.db.run("DELETE FROM entries WHERE key IN (SELECT value FROM json_each(?))", [json]);
    this.db.run("DELETE FROM entry_paths WHERE key IN (SELECT value FROM json_each(?))", [json]);
  }
}
