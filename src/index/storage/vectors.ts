import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { IndxError } from "../../core/errors.ts";
import { fileIdentity } from "../../core/file-identity.ts";
import { jsonList } from "./queries/lists.ts";
import { loadVec } from "./sqlite-vec.ts";
import { BUSY_TIMEOUT_MS } from "./store.ts";

const VECTORS_SCHEMA_VERSION = 2;
export const REEMBED_FIX = "indx vault index --reembed";

/** Who made the stored vectors, as recorded with the first of them. */
export interface StoredIdentity {
  provider: string;
  model: string;
  dim: number;
}

export interface VectorHit {
  hash: string;
  /** Cosine distance, 0 (same direction) … 2 (opposite). */
  distance: number;
}

export interface StoredVector {
  hash: string;
  /** L2-normalised. */
  vector: Float32Array;
}

/**
 * vectors.db, beside index.db in the vault's data directory: the SQLite storage of embeddings,
 * keyed by chunk content hash (a lexical `--rebuild`, which deletes index.db, keeps them).
 * `embeddings` holds each hash with its exact float32 vector; `vec` is a sqlite-vec vec0 table of
 * int8-quantised copies (rowid = embeddings.id) for a coarse KNN. Which search to run when is
 * decided by the caller (src/embeddings/store.ts).
 */
export class VectorStorage {
  /** Which file the connection opened: `--reembed` in another connection deletes it and makes a new one. */
  private readonly inode: string | null;

  private constructor(
    private readonly db: Database,
    private readonly path: string,
    /** sqlite-vec is loaded: the int8 KNN table is kept and used. */
    readonly hasKnn: boolean,
  ) {
    this.inode = fileIdentity(path);
  }

  static pathFor(dataDir: string): string {
    return join(dataDir, "vectors.db");
  }

  static exists(dataDir: string): boolean {
    return existsSync(VectorStorage.pathFor(dataDir));
  }

  /**
   * Opens (creating when missing) the vector storage of a data directory. Without sqlite-vec
   * (`extension: false`, or a library that does not load, as on macOS) the exact vectors are
   * still stored and scanned, only the int8 KNN table is not kept; the next connection that has
   * the extension rebuilds that table (docs/decisions.md, "sqlite-vec on every desktop").
   */
  static open(dataDir: string, opts: { extension?: boolean } = {}): VectorStorage {
    const path = VectorStorage.pathFor(dataDir);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const db = new Database(path, { create: true, strict: true });
    const withVec = opts.extension !== false && loadVec(db);
    try {
      db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`); // before journal_mode: see connect() in store.ts
      db.run("PRAGMA journal_mode = WAL");
      db.run("PRAGMA synchronous = NORMAL");
      // The KNN reads every quantised vector: mapping the file saves a copy per page.
      db.run("PRAGMA mmap_size = 1073741824");
      db.run("PRAGMA cache_size = -32000");
      db.run("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID");
      db.run("CREATE TABLE IF NOT EXISTS embeddings (id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE, vector BLOB NOT NULL)");
      const version = db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'schema_version'").get()?.value;
      if (version === undefined) db.query("INSERT INTO meta(key, value) VALUES ('schema_version', ?)").run(String(VECTORS_SCHEMA_VERSION));
      else if (version !== String(VECTORS_SCHEMA_VERSION)) {
        db.close();
        throw new IndxError("index_incompatible", `The stored vectors were written by another indx version. Run \`${REEMBED_FIX}\`.`, {
          reason: "vector schema version",
          fix: REEMBED_FIX,
        });
      }
    } catch (err) {
      if (err instanceof IndxError) throw err;
      try {
        db.close();
      } catch {}
      throw new IndxError("index_incompatible", `The vector store cannot be opened. Run \`${REEMBED_FIX}\` to rebuild it.`, {
        reason: "vectors.db unreadable",
        fix: REEMBED_FIX,
      });
    }
    const storage = new VectorStorage(db, path, withVec);
    if (withVec) storage.catchUpKnnTable();
    return storage;
  }

  /** Deletes vectors.db (`--reembed`). */
  static remove(dataDir: string): void {
    const path = VectorStorage.pathFor(dataDir);
    for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
  }

  private meta(key: string): string | null {
    return this.db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key)?.value ?? null;
  }

  private setMeta(key: string, value: string): void {
    this.db.query("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
  }

  /** How much the vector list weighs in fusion for these vectors, as JSON (src/search/fusion-weight.ts); null before it is measured. */
  fusion(): string | null {
    return this.meta("fusion");
  }

  recordFusion(json: string): void {
    this.setMeta("fusion", json);
  }

  /** The recorded identity, or null before the first vector. */
  identity(): StoredIdentity | null {
    const provider = this.meta("provider");
    const model = this.meta("model");
    const dim = Number(this.meta("dim"));
    if (!provider || !model || !dim) return null;
    return { provider, model, dim };
  }

  /** Records the identity and creates the vec0 table for its dimension (a positive integer). */
  recordIdentity(id: StoredIdentity): void {
    this.db.transaction(() => {
      if (this.hasKnn) this.db.run(`CREATE VIRTUAL TABLE IF NOT EXISTS vec USING vec0(embedding int8[${id.dim}])`);
      this.setMeta("provider", id.provider);
      this.setMeta("model", id.model);
      this.setMeta("dim", String(id.dim));
      this.setMeta("created_at", new Date().toISOString());
    })();
  }

  /** False once the file was deleted or replaced: this connection would read vectors nobody else sees. */
  isCurrent(): boolean {
    return this.inode !== null && fileIdentity(this.path) === this.inode;
  }

  /** Changes whenever another connection commits to this file (SQLite's data_version); own writes leave it. */
  dataVersion(): number {
    return this.db.query<{ data_version: number }, []>("PRAGMA data_version").get()?.data_version ?? 0;
  }

  count(): number {
    return this.db.query<{ n: number }, []>("SELECT count(*) AS n FROM embeddings").get()?.n ?? 0;
  }

  /** Every hash that has a vector. */
  hashes(): Set<string> {
    return new Set(
      this.db
        .query<{ hash: string }, []>("SELECT hash FROM embeddings")
        .values()
        .map((r) => r[0] as string),
    );
  }

  /** Stores normalised vectors in one transaction and returns those that were new (a hash already present is kept as it is). */
  insert(entries: StoredVector[]): StoredVector[] {
    const insert = this.db.prepare("INSERT OR IGNORE INTO embeddings(hash, vector) VALUES (?, ?)");
    const insertVec = this.hasKnn ? this.db.prepare("INSERT INTO vec(rowid, embedding) VALUES (?, vec_quantize_int8(?, 'unit'))") : null;
    const added: StoredVector[] = [];
    this.db.transaction(() => {
      for (const e of entries) {
        const blob = toBlob(e.vector);
        const r = insert.run(e.hash, blob);
        if (r.changes === 0) continue;
        insertVec?.run(Number(r.lastInsertRowid), blob);
        added.push(e);
      }
      if (!insertVec && added.length) this.setMeta("knn_stale", "1");
    })();
    return added;
  }

  /** Deletes the vectors whose hash is not in `live`; returns the deleted hashes. */
  deleteExcept(live: Set<string>): string[] {
    const dead = this.db
      .query<{ id: number; hash: string }, []>("SELECT id, hash FROM embeddings")
      .all()
      .filter((r) => !live.has(r.hash));
    if (dead.length === 0) return [];
    const delE = this.db.prepare("DELETE FROM embeddings WHERE id = ?");
    const delV = this.hasKnn && this.hasKnnTable() ? this.db.prepare("DELETE FROM vec WHERE rowid = ?") : null;
    this.db.transaction(() => {
      for (const r of dead) {
        delE.run(r.id);
        delV?.run(r.id);
      }
      if (!this.hasKnn) this.setMeta("knn_stale", "1");
    })();
    return dead.map((r) => r.hash);
  }

  /** Exact vectors of some hashes. */
  vectorsOf(hashes: string[]): Map<string, Float32Array> {
    const out = new Map<string, Float32Array>();
    if (hashes.length === 0) return out;
    const rows = this.db
      .query<{ hash: string; vector: Uint8Array }, [string]>("SELECT hash, vector FROM embeddings WHERE hash IN (SELECT value FROM json_each(?))")
      .all(jsonList(hashes));
    for (const r of rows) out.set(r.hash, fromBlob(r.vector));
    return out;
  }

  /** Every vector in insertion order (loading the in-memory matrix). */
  *all(): Generator<StoredVector> {
    for (const [hash, vector] of this.db.query<[string, Uint8Array], []>("SELECT hash, vector FROM embeddings ORDER BY id").values())
      yield { hash: hash as string, vector: fromBlob(vector as Uint8Array) };
  }

  /** The `limit` nearest of all vectors (or of `among`), scored exactly, by cosine distance then age. */
  scan(query: Float32Array, limit: number, among?: string[]): VectorHit[] {
    if (!this.hasKnn) return this.scanWithoutExtension(query, limit, among);
    const q = toBlob(query);
    if (among)
      return this.db
        .query<VectorHit, [Uint8Array, string]>(
          `SELECT hash, vec_distance_cosine(vector, ?1) AS distance FROM embeddings
            WHERE hash IN (SELECT value FROM json_each(?2)) ORDER BY distance, id LIMIT ${limit}`,
        )
        .all(q, jsonList(among));
    return this.db
      .query<VectorHit, [Uint8Array]>(`SELECT hash, vec_distance_cosine(vector, ?1) AS distance FROM embeddings ORDER BY distance, id LIMIT ${limit}`)
      .all(q);
  }

  /** The same exact scan in JavaScript: stored vectors and the query are normalised, so cosine distance is 1 − dot. */
  private scanWithoutExtension(query: Float32Array, limit: number, among?: string[]): VectorHit[] {
    const rows = among
      ? this.db
          .query<[string, Uint8Array], [string]>("SELECT hash, vector FROM embeddings WHERE hash IN (SELECT value FROM json_each(?)) ORDER BY id")
          .values(jsonList(among))
      : this.db.query<[string, Uint8Array], []>("SELECT hash, vector FROM embeddings ORDER BY id").values();
    const hits = rows.map(([hash, blob]) => {
      const v = fromBlob(blob as Uint8Array);
      let dot = 0;
      for (let i = 0; i < v.length; i++) dot += (v[i] ?? 0) * (query[i] ?? 0);
      return { hash: hash as string, distance: 1 - dot };
    });
    // A stable sort keeps insertion order (id) among equal distances, as the SQL does.
    return hits.sort((a, b) => a.distance - b.distance).slice(0, limit);
  }

  /** A coarse int8 KNN over `candidates` vectors, rescored exactly: the `limit` best of those. */
  knn(query: Float32Array, limit: number, candidates: number): VectorHit[] {
    if (!this.hasKnn) return this.scan(query, limit);
    const q = toBlob(query);
    const ids = this.db
      .query<{ rowid: number }, [Uint8Array, number]>("SELECT rowid FROM vec WHERE embedding MATCH vec_quantize_int8(?, 'unit') AND k = ?")
      .values(q, candidates);
    return this.db
      .query<VectorHit, [Uint8Array, string]>(
        `SELECT hash, vec_distance_cosine(vector, ?1) AS distance FROM embeddings
          WHERE id IN (SELECT value FROM json_each(?2)) ORDER BY distance, id LIMIT ${limit}`,
      )
      .all(q, jsonList(ids.map((r) => r[0] as number)));
  }

  private hasKnnTable(): boolean {
    return this.db.query("SELECT 1 FROM sqlite_master WHERE name = 'vec'").get() !== null;
  }

  /** Vectors written without the extension are missing from the KNN table: it is made again from the exact ones. */
  private catchUpKnnTable(): void {
    if (this.meta("knn_stale") !== "1") return;
    const id = this.identity();
    this.db.transaction(() => {
      this.db.run("DROP TABLE IF EXISTS vec");
      if (id) {
        this.db.run(`CREATE VIRTUAL TABLE vec USING vec0(embedding int8[${id.dim}])`);
        this.db.run("INSERT INTO vec(rowid, embedding) SELECT id, vec_quantize_int8(vector, 'unit') FROM embeddings");
      }
      this.db.run("DELETE FROM meta WHERE key = 'knn_stale'");
    })();
  }

  close(): void {
    this.db.close();
  }
}

const toBlob = (v: Float32Array) => new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
const fromBlob = (b: Uint8Array) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
