import { IndxError } from "../core/errors.ts";
import { debugLog } from "../core/log.ts";
import { REEMBED_FIX, type VectorHit, VectorStorage } from "../index/storage/vectors.ts";
import { describeIdentity, type EmbeddingIdentity, type EmbeddingsSettings } from "../providers/settings.ts";
import { VectorMatrix } from "./matrix.ts";

export { REEMBED_FIX } from "../index/storage/vectors.ts";

/** Above this, a process does not keep the vectors in memory and stays on sqlite-vec's KNN. */
const MATRIX_MAX_BYTES = 1024 * 1024 * 1024;

/** Up to this many vectors, a query scans them all exactly (≈ 7 ms at 768 dimensions). */
const EXACT_MAX = 4000;

/**
 * The embeddings of a vault (stored in vectors.db by src/index/storage/vectors.ts), keyed by chunk content
 * hash, so unchanged chunks and renamed notes are never embedded again. It records the embedding
 * identity {provider, model, dim}; vectors of another identity are never mixed in.
 *
 * Search: small stores are scanned exactly; larger ones get a coarse int8 KNN over max(4k, 200)
 * candidates, rescored exactly. Measured on 20,000 × 768 (docs/decisions.md): int8 ≈ 20 ms with
 * recall@10 ≈ 0.93–0.95 against an exact scan (≈ 37 ms); sign bits were 4× faster but found only
 * a quarter to a half of the true top 10 for short queries, so they are not used.
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
  /** The storage's data_version the matrix reflects: another connection's commit changes it. */
  private matrixVersion = 0;

  private constructor(private readonly storage: VectorStorage) {}

  static exists(dataDir: string): boolean {
    return VectorStorage.exists(dataDir);
  }

  /** Opens (creating when missing) the vector store of a data directory; `extension: false` scans without sqlite-vec. */
  static open(dataDir: string, opts: { extension?: boolean } = {}): VectorStore {
    return new VectorStore(VectorStorage.open(dataDir, opts));
  }

  /** Deletes vectors.db (`--reembed`). */
  static remove(dataDir: string): void {
    VectorStorage.remove(dataDir);
  }

  /** The measured fusion weight of these vectors (JSON, src/search/fusion-weight.ts), or null. */
  fusion(): string | null {
    return this.storage.fusion();
  }

  recordFusion(json: string): void {
    this.storage.recordFusion(json);
  }

  /** The identity of the stored vectors, or null before the first vector. */
  identity(): EmbeddingIdentity | null {
    const id = this.storage.identity();
    return id && { ...id, provider: id.provider as EmbeddingIdentity["provider"] };
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
    this.storage.recordIdentity(id);
  }

  count(): number {
    return this.storage.count();
  }

  /** Every hash that has a vector. */
  hashes(): Set<string> {
    return this.storage.hashes();
  }

  /** Stores vectors (normalised here) in one transaction; hashes already present are kept as they are. */
  put(entries: { hash: string; vector: number[] }[]): number {
    const added = this.storage.insert(entries.map((e) => ({ hash: e.hash, vector: normalize(e.vector) })));
    for (const e of added) this.matrix?.add(e.hash, e.vector);
    return added.length;
  }

  /** Removes vectors whose hash is not in `live` (chunks gone from the vault). */
  prune(live: Set<string>): number {
    const dead = this.storage.deleteExcept(live);
    for (const hash of dead) this.matrix?.remove(hash);
    return dead.length;
  }

  /** Exact vectors of some hashes (related: the source note's own vectors). */
  vectorsOf(hashes: string[]): Map<string, Float32Array> {
    return this.storage.vectorsOf(hashes);
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
    if (only) return only.length === 0 ? [] : this.storage.scan(normalized, limit, only);
    if (this.count() <= EXACT_MAX) return this.storage.scan(normalized, limit);
    return this.storage.knn(normalized, limit, Math.min(4096, Math.max(200, limit * 4)));
  }

  /** False once vectors.db was deleted or replaced (`--reembed` by another connection): open it again. */
  isCurrent(): boolean {
    return this.storage.isCurrent();
  }

  /**
   * The in-memory matrix, loaded on first use when the process keeps vectors warm, and brought
   * up to date when another connection (the embedder of another thread or process) committed
   * vectors since: this connection's own writes update it as they happen.
   */
  private warmMatrix(): VectorMatrix | null {
    if (!this.keepWarm || this.matrixUnavailable) return null;
    if (this.matrix) {
      const version = this.storage.dataVersion();
      if (version !== this.matrixVersion) this.catchUp(this.matrix, version);
      return this.matrix;
    }
    const id = this.identity();
    if (!id) return null;
    if (this.count() * Math.ceil(id.dim / 16) * 16 * 4 > MATRIX_MAX_BYTES) {
      this.matrixUnavailable = true;
      return null;
    }
    try {
      const matrix = new VectorMatrix(id.dim);
      this.matrixVersion = this.storage.dataVersion();
      for (const { hash, vector } of this.storage.all()) matrix.add(hash, vector);
      this.matrix = matrix;
    } catch (err) {
      // No WebAssembly SIMD, or no memory for it: the SQL path still answers.
      debugLog("vector matrix unavailable", { error: err });
      this.matrixUnavailable = true;
    }
    return this.matrix;
  }

  /** Takes the stored vectors the matrix lacks and drops those no longer stored. */
  private catchUp(matrix: VectorMatrix, version: number): void {
    this.matrixVersion = version;
    const stored = this.storage.hashes();
    for (const hash of matrix.keys()) if (!stored.has(hash)) matrix.remove(hash);
    const missing = [...stored].filter((hash) => !matrix.has(hash));
    for (const [hash, vector] of this.storage.vectorsOf(missing)) matrix.add(hash, vector);
  }

  close(): void {
    this.matrix = null;
    this.storage.close();
  }
}

export function normalize(v: ArrayLike<number>): Float32Array {
  const out = new Float32Array(v.length);
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i] ?? 0;
    n += x * x;
  }
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) out[i] = (v[i] ?? 0) / n;
  return out;
}
