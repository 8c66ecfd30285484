import { Database } from "bun:sqlite";
import { join } from "node:path";

/** The first answer to a write sent with an Idempotency-Key. */
export interface IdempotencyRecord {
  key: string;
  /** Hash of the request, so a key reused for another request is told apart. */
  fingerprint: string;
  /** The result, as JSON. */
  resultJson: string;
  createdAt: number;
}

/**
 * state.db, beside index.db: state that must outlive an index rebuild. Today that is the
 * idempotency records; what they mean (TTL, replay, reuse) is decided in src/writes/idempotency.ts.
 */
export class StateDb {
  private readonly db: Database;

  constructor(dataDir: string) {
    this.db = new Database(join(dataDir, "state.db"), { create: true });
    this.db.run("PRAGMA journal_mode = WAL");
    this.db.run("PRAGMA busy_timeout = 10000");
    this.db.run(`CREATE TABLE IF NOT EXISTS idempotency (
      key         TEXT PRIMARY KEY,
      fingerprint TEXT NOT NULL,
      result      TEXT NOT NULL,
      created_at  INTEGER NOT NULL
    )`);
  }

  idempotencyRecord(key: string): IdempotencyRecord | null {
    return this.db
      .query<IdempotencyRecord, [string]>("SELECT key, fingerprint, result AS resultJson, created_at AS createdAt FROM idempotency WHERE key = ?")
      .get(key);
  }

  /** Stores a record, replacing any under the same key. */
  saveIdempotencyRecord(r: IdempotencyRecord): void {
    this.db.run("INSERT OR REPLACE INTO idempotency (key, fingerprint, result, created_at) VALUES (?, ?, ?, ?)", [
      r.key,
      r.fingerprint,
      r.resultJson,
      r.createdAt,
    ]);
  }

  /** Deletes the records created before `time` (ms since the epoch). */
  deleteIdempotencyRecordsBefore(time: number): void {
    this.db.run("DELETE FROM idempotency WHERE created_at < ?", [time]);
  }

  close(): void {
    this.db.close();
  }
}
