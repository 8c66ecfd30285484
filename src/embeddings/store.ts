import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { describeIdentity, type EmbeddingIdentity, type EmbeddingsSettings } from "../ai/settings.ts";
import { IndxError } from "../core/errors.ts";
import { debugLog } from "../core/log.ts";
import { VectorMatrix } from "./matrix.ts";
import { loadVec } from "./sqlite-vec.ts";

/** Above this, a process does not keep the vectors in memory and stays on sqlite-vec's KNN. */
const MATRIX_MAX_BYTES = 1024 * 1024 * 1024;

export const VECTORS_SCHEMA_VERSION = 2;
/** Up to this many vectors, a query scans them all exactly (≈ 7 ms at 768 dimensions). */
const EXACT_MAX = 4000;

export const REEMBED_FIX = "indx vault index --reembed";

export interface VectorHit {
  hash: string;
  /** Cosine distance, 0 (same direction) … 2 (opposite). */
  distance: number;
}

/**
 * vectors.db, beside index.db in the vault's data directory: embeddings keyed by chunk content
 * hash, so unchanged chunks and renamed notes are never embedded again, and a lexical
 * `--rebuild` (which deletes index.db) keeps them. It records the embedding identity
 * {provider, model, dim}; vectors of another identity are never mixed in.
 *
 * Layout: `embeddings` holds each hash with its exact float32 vector (L2-normalised); `vec` is a
 * sqlite-vec vec0 table of int8-quantised copies (rowid = embeddings.id) for a coarse KNN over
 * max(4k, 200) candidates, rescored exactly from `embeddings`. Small stores are scanned exactly.
 * Measured on 20,000 × 768 (docs/decisions.md): int8 ≈ 20 ms with recall@10 ≈ 0.93–0.95 against
 * an exact scan (≈ 37 ms); sign bits were 4× faster but found only a quarter to a half of the
 * true top 10 for short queries, so they are not used.
 */
export class VectorStore {
  /**
   * Long-lived processes (serve, MCP) set this: the vectors are then loaded once into an
   * in-memory matrix and every query is an exact SIMD scan (≈ 8 ms at 20,000 × 768).
   * One-shot CLI commands would pay the load on every run, so they keep the SQL path.
   */
  keepWarm = false;
  private matrix: VectorMatrix | null = null;
  private matrixUnavailable = false;

  private constructor(
    readonly db: Database,
    readonly path: string,
  ) {}

  static pathFor(dataDir: string): string {
    return join(dataDir, "vectors.db");
  }

  static exists(dataDir: string): boolean {
    return existsSync(VectorStore.pathFor(dataDir));
  }

  /** Opens (creating when missing) the vector store of a data directory. */
  static open(dataDir: string): VectorStore {
    const path = VectorStore.pathFor(dataDir);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const db = new Database(path, { create: true, strict: true });
    try {
      loadVec(db);
    } catch (err) {
      db.close();
      if (err instanceof IndxError) throw err;
      debugLog("sqlite-vec failed to load", { error: err });
      throw new IndxError(
        "ai_unavailable",
        "Vector search is unavailable: the sqlite-vec extension could not be loaded. Set INDX_SQLITE_VEC_PATH to a vec0 library for this platform.",
        { fix: "set INDX_SQLITE_VEC_PATH" },
      );
    }
    try {
      db.run("PRAGMA journal_mode = WAL");
      db.run("PRAGMA synchronous = NORMAL");
      db.run("PRAGMA busy_timeout = 10000");
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
    return new VectorStore(db, path);
  }

  /** Deletes vectors.db (`--reembed`). */
  static remove(dataDir: string): void {
    const path = VectorStore.pathFor(dataDir);
    for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
  }

  private meta(key: string): string | null {
    return this.db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key)?.value ?? null;
  }

  private setMeta(key: string, value: string): void {
    this.db.query("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
  }

  /** The identity of the stored vectors, or null before the first vector. */
  identity(): EmbeddingIdentity | null {
    const provider = this.meta("provider");
    const model = this.meta("model");
    const dim = Number(this.meta("dim"));
    if (!provider || !model || !dim) return null;
    return { provider: provider as EmbeddingIdentity["provider"], model, dim };
  }

  /**
   * Why the stored vectors cannot serve this configuration, or null when they can (or when
   * there are none yet). The dimension is checked when the provider reports one.
   */
  mismatch(s: Pick<EmbeddingsSettings, "provider" | "model">, dim?: number): string | null {
    const id = this.identity();
    if (!id) return null;
    if (id.provider !== s.provider || id.model !== s.model)
      return `the stored vectors were made by ${describeIdentity(id)}, but ${describeIdentity({ provider: s.provider, model: s.model })} is configured`;
    if (dim !== undefined && dim !== id.dim) return `the stored vectors have ${id.dim} dimensions, but ${describeIdentity(id)} now returns ${dim}`;
    return null;
  }

  /** Records the identity and creates the vec0 table for its dimension (first vectors only). */
  initIdentity(id: EmbeddingIdentity): void {
    const current = this.identity();
    if (current) {
      if (current.provider !== id.provider || current.model !== id.model || current.dim !== id.dim)
        throw new IndxError("index_incompatible", `Vectors of ${describeIdentity(current)} are stored; run \`${REEMBED_FIX}\`.`, { fix: REEMBED_FIX });
      return;
    }
    if (!Number.isInteger(id.dim) || id.dim < 1 || id.dim > 8192)
      throw new IndxError("ai_provider_error", `The embeddings provider returned vectors of an unusable size (${id.dim}).`);
    this.db.transaction(() => {
      this.db.run(`CREATE VIRTUAL TABLE IF NOT EXISTS vec USING vec0(embedding int8[${id.dim}])`);
      this.setMeta("provider", id.provider);
      this.setMeta("model", id.model);
      this.setMeta("dim", String(id.dim));
      this.setMeta("created_at", new Date().toISOString());
    })();
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

  /** Stores vectors (normalised here) in one transaction; hashes already present are kept as they are. */
  put(entries: { hash: string; vector: number[] }[]): number {
    const insert = this.db.prepare("INSERT OR IGNORE INTO embeddings(hash, vector) VALUES (?, ?)");
    const insertVec = this.db.prepare("INSERT INTO vec(rowid, embedding) VALUES (?, vec_quantize_int8(?, 'unit'))");
    let added = 0;
    this.db.transaction(() => {
      for (const e of entries) {
        const blob = toBlob(normalize(e.vector));
        const r = insert.run(e.hash, blob);
        if (r.changes === 0) continue;
        insertVec.run(Number(r.lastInsertRowid), blob);
        this.matrix?.add(e.hash, fromBlob(blob));
        added++;
      }
    })();
    return added;
  }

  /** Removes vectors whose hash is not in `live` (chunks gone from the vault). */
  prune(live: Set<string>): number {
    const deadRows = this.db
      .query<{ id: number; hash: string }, []>("SELECT id, hash FROM embeddings")
      .all()
      .filter((r) => !live.has(r.hash));
    if (deadRows.length === 0) return 0;
    for (const r of deadRows) this.matrix?.remove(r.hash);
    const dead = deadRows.map((r) => r.id);
    const delE = this.db.prepare("DELETE FROM embeddings WHERE id = ?");
    const delV = this.db.prepare("DELETE FROM vec WHERE rowid = ?");
    this.db.transaction(() => {
      for (const id of dead) {
        delE.run(id);
        delV.run(id);
      }
    })();
    return dead.length;
  }

  /** Exact vectors of some hashes (related: the source note's own vectors). */
  vectorsOf(hashes: string[]): Map<string, Float32Array> {
    const out = new Map<string, Float32Array>();
    if (hashes.length === 0) return out;
    const rows = this.db
      .query<{ hash: string; vector: Uint8Array }, [string]>("SELECT hash, vector FROM embeddings WHERE hash IN (SELECT value FROM json_each(?))")
      .all(JSON.stringify(hashes));
    for (const r of rows) out.set(r.hash, fromBlob(r.vector));
    return out;
  }

  /**
   * The k nearest hashes to a query vector, by cosine distance, best first. Small stores are
   * scanned exactly; larger ones get a coarse int8 KNN over max(4k, 200) candidates (its cost
   * hardly depends on k), rescored exactly. `only` restricts to some hashes
   * (filters): then those are scored exactly.
   */
  nearest(query: ArrayLike<number>, k: number, only?: string[]): VectorHit[] {
    if (!this.identity() || k <= 0) return [];
    const normalized = normalize(Array.from(query));
    const limit = Math.floor(k);
    const matrix = this.warmMatrix();
    if (matrix) return matrix.nearest(normalized, limit, only ? new Set(only) : undefined);
    const q = toBlob(normalized);
    if (only) {
      if (only.length === 0) return [];
      return this.db
        .query<VectorHit, [Uint8Array, string]>(
          `SELECT hash, vec_distance_cosine(vector, ?1) AS distance FROM embeddings
            WHERE hash IN (SELECT value FROM json_each(?2)) ORDER BY distance, id LIMIT ${limit}`,
        )
        .all(q, JSON.stringify(only));
    }
    if (this.count() <= EXACT_MAX)
      return this.db
        .query<VectorHit, [Uint8Array]>(`SELECT hash, vec_distance_cosine(vector, ?1) AS distance FROM embeddings ORDER BY distance, id LIMIT ${limit}`)
        .all(q);
    const coarse = Math.min(4096, Math.max(200, limit * 4));
    const ids = this.db
      .query<{ rowid: number }, [Uint8Array, number]>("SELECT rowid FROM vec WHERE embedding MATCH vec_quantize_int8(?, 'unit') AND k = ?")
      .values(q, coarse);
    return this.db
      .query<VectorHit, [Uint8Array, string]>(
        `SELECT hash, vec_distance_cosine(vector, ?1) AS distance FROM embeddings
          WHERE id IN (SELECT value FROM json_each(?2)) ORDER BY distance, id LIMIT ${limit}`,
      )
      .all(q, JSON.stringify(ids.map((r) => r[0] as number)));
  }

  /** The in-memory matrix, loaded on first use when the process keeps vectors warm. */
  private warmMatrix(): VectorMatrix | null {
    if (!this.keepWarm || this.matrixUnavailable) return null;
    if (this.matrix) return this.matrix;
    const id = this.identity();
    if (!id) return null;
    if (this.count() * Math.ceil(id.dim / 16) * 16 * 4 > MATRIX_MAX_BYTES) {
      this.matrixUnavailable = true;
      return null;
    }
    try {
      const matrix = new VectorMatrix(id.dim);
      for (const [hash, vector] of this.db.query<[string, Uint8Array], []>("SELECT hash, vector FROM embeddings ORDER BY id").values())
        matrix.add(hash as string, fromBlob(vector as Uint8Array));
      this.matrix = matrix;
    } catch (err) {
      // No WebAssembly SIMD, or no memory for it: the SQL path still answers.
      debugLog("vector matrix unavailable", { error: err });
      this.matrixUnavailable = true;
    }
    return this.matrix;
  }

  close(): void {
    this.matrix = null;
    this.db.close();
  }
}

export function normalize(v: ArrayLike<number>): Float32Array {
  const out = new Float32Array(v.length);
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / n;
  return out;
}

const toBlob = (v: Float32Array) => new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
const fromBlob = (b: Uint8Array) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
