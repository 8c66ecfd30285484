import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileIdentity } from "../../core/file-identity.ts";
import { BUSY_TIMEOUT_MS } from "./store.ts";

/** The first answer to a write sent with an Idempotency-Key. */
export interface IdempotencyRecord {
  key: string;
  /** Hash of the request, so a key reused for another request is told apart. */
  fingerprint: string;
  /** The result, stored as JSON and decoded here, behind the seam. */
  result: unknown;
  createdAt: number;
}

/**
 * state.db, beside index.db: state that must outlive an index rebuild. Today that is the
 * idempotency records; what they mean (TTL, replay, reuse) is decided in src/writes/idempotency.ts.
 */
export class StateDb {
  private readonly path: string;
  private conn: { db: Database; identity: string | null } | null = null;

  constructor(private readonly dataDir: string) {
    this.path = join(dataDir, "state.db");
    this.connection();
  }

  /** The connection to state.db, opened again when the file was deleted (the data folder removed) meanwhile. */
  private connection(): Database {
    if (this.conn && this.conn.identity === fileIdentity(this.path)) return this.conn.db;
    this.conn?.db.close();
    mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    const db = new Database(this.path, { create: true });
    db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`); // before journal_mode: see connect() in store.ts
    db.run("PRAGMA journal_mode = WAL");
    db.run(`CREATE TABLE IF NOT EXISTS idempotency (
      key         TEXT PRIMARY KEY,
      fingerprint TEXT NOT NULL,
      result      TEXT NOT NULL,
      created_at  INTEGER NOT NULL
    )`);
    this.conn = { db, identity: fileIdentity(this.path) };
    return db;
  }

  idempotencyRecord(key: string): IdempotencyRecord | null {
    const row = this.connection()
      .query<Omit<IdempotencyRecord, "result"> & { resultJson: string }, [string]>(
        "SELECT key, fingerprint, result AS resultJson, created_at AS createdAt FROM idempotency WHERE key = ?",
      )
      .get(key);
    if (!row) return null;
    const { resultJson, ...rest } = row;
    return { ...rest, result: JSON.parse(resultJson) };
  }

  /** Stores a record, replacing any under the same key. */
  saveIdempotencyRecord(r: IdempotencyRecord): void {
    this.connection().run("INSERT OR REPLACE INTO idempotency (key, fingerprint, result, created_at) VALUES (?, ?, ?, ?)", [
      r.key,
      r.fingerprint,
      JSON.stringify(r.result),
      r.createdAt,
    ]);
  }

  /** Deletes the records created before `time` (ms since the epoch). */
  deleteIdempotencyRecordsBefore(time: number): void {
    this.connection().run("DELETE FROM idempotency WHERE created_at < ?", [time]);
  }

  close(): void {
    this.conn?.db.close();
    this.conn = null;
  }
}
