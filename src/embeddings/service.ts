import { IndxError } from "../core/errors.ts";
import { logEvent } from "../core/log.ts";
import type { ProgressFn } from "../core/progress.ts";
import type { IndexStore } from "../index/storage/store.ts";
import type { OpContext } from "../ops/context.ts";
import { AiGlobs } from "../providers/globs.ts";
import type { MeterSource } from "../providers/meter.ts";
import { type ProbeResult, probeEmbeddings } from "../providers/probe.ts";
import { createEmbeddingProvider } from "../providers/providers.ts";
import { describeIdentity, type EmbeddingsSettings, embeddingsSettings } from "../providers/settings.ts";
import type { SpendLedger } from "../providers/spend.ts";
import { type EmbeddingProvider, ProviderError } from "../providers/types.ts";
import { DenyWall } from "../providers/wall.ts";
import { decisionCurrent, type FusionDecision, measureFusion, parseDecision } from "../search/fusion-weight.ts";
import type { Vault } from "../vault/vault.ts";
import { type EmbedEstimate, type EmbedReport, embedPending, estimateRun, notApproved } from "./job.ts";
import { normalize, REEMBED_FIX, VectorStore } from "./store.ts";

/** How long a provider that just failed is left alone before a query tries it again. */
const PROVIDER_COOLDOWN_MS = 30_000;
const QUERY_TIMEOUT_MS = 10_000;
const QUERY_CACHE = 256;

export type Availability =
  | { state: "ready"; settings: EmbeddingsSettings; store: VectorStore; chunks: number; pending: number }
  | { state: "not_configured" }
  | { state: "empty" | "incompatible" | "provider_down" | "misconfigured" | "unusable"; message: string; fix: string };

/**
 * Everything about embeddings for one vault, owned by its context (`ctx.embeddings`: one per
 * context tree, closed by `ctx.close()`): the provider (null when not configured), the vector
 * store, the embedding job (one at a time), query embeddings (cached, with a cool-down after a
 * failure so a dead provider costs a search nothing), and the background embedder of `serve`
 * and MCP stdio.
 */
export class EmbeddingService {
  /** Progress of embedding runs (the CLI's second progress bar). */
  progress: ProgressFn | undefined;
  /**
   * Asked before a run with a paid embeddings model, with what it is expected to cost (the CLI
   * shows it, and asks on a terminal above a threshold). False: the run does not start.
   */
  approve: ((estimate: EmbedEstimate) => boolean | Promise<boolean>) | undefined;
  /** First retry delay of an embedding request (doubles per attempt). */
  backoffMs = 500;
  private store: VectorStore | null = null;
  /** serve and MCP keep the vectors in memory for exact SIMD scans (VectorStore.keepWarm). */
  private keepWarm = false;
  private providerKey = "";
  private providerInst: EmbeddingProvider | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * Coverage per index view: a folder grant's view counts its own chunks (docs/permissions.md),
   * and never hands its count to the whole index's callers, or theirs to it.
   */
  private coverage = new WeakMap<IndexStore, { chunks: number; pending: number }>();
  private downUntil = 0;
  private readonly queryCache = new Map<string, Float32Array>();
  private readonly changeListeners = new Set<() => void>();

  /** The deny wall of the index as it is (src/providers/wall.ts), rebuilt after each change. */
  private wallValue: DenyWall | null = null;

  constructor(
    private readonly vault: Vault,
    private readonly index: () => IndexStore,
    /** The vault's spend ledger: paid embeddings count against the same daily cap as chat (src/providers/meter.ts). */
    private readonly ledger: () => SpendLedger,
  ) {}

  /** The ledger and the cap every embedding request is held against. */
  meter(): MeterSource {
    return { ledger: this.ledger, cap: this.vault.config.num("ai.daily_cost_usd") };
  }

  /** What the AI deny globs keep from the embeddings provider: every request passes it. */
  wall(): DenyWall {
    return (this.wallValue ??= DenyWall.of(this.index(), AiGlobs.of(this.vault.config)));
  }

  /** The configured embeddings role, or null. Throws validation_failed on a half configuration. */
  settings(): EmbeddingsSettings | null {
    return embeddingsSettings(this.vault.config);
  }

  provider(s: EmbeddingsSettings): EmbeddingProvider {
    const key = JSON.stringify([s.provider, s.baseUrl, s.model, s.timeoutMs, s.apiKey ? Bun.hash(s.apiKey).toString() : ""]);
    if (key !== this.providerKey || !this.providerInst) {
      this.providerInst = createEmbeddingProvider(s, () => this.wall(), this.meter());
      this.providerKey = key;
    }
    return this.providerInst;
  }

  /** The vector store; null when it does not exist and `create` is false. */
  vectors(create = false): VectorStore | null {
    if (this.store?.isCurrent()) return this.store;
    // Deleted or replaced by `--reembed` in another thread or process: read the new file.
    this.store?.close();
    this.store = null;
    if (!create && !VectorStore.exists(this.vault.dataDir)) return null;
    return this.createdVectors();
  }

  /** The vector store, created when it does not exist. */
  private createdVectors(): VectorStore {
    if (this.store?.isCurrent()) return this.store;
    this.store?.close();
    this.vault.ensureDataDir();
    const store = VectorStore.open(this.vault.dataDir);
    store.keepWarm = this.keepWarm;
    this.store = store;
    return store;
  }

  /** An index update makes the coverage stale (the context that owns this service calls it). */
  indexChanged(): void {
    this.coverage = new WeakMap();
    this.wallValue = null;
  }

  /** Another thread's embedding run added or removed vectors (the reader workers of `serve` hear of the main thread's). */
  vectorsChangedElsewhere(): void {
    this.coverage = new WeakMap();
  }

  /** Long-lived processes and threads keep the vectors in memory for exact scans (VectorStore.keepWarm). */
  keepVectorsWarm(): void {
    this.keepWarm = true;
    if (this.store) this.store.keepWarm = true;
  }

  /** Distinct chunk contents, and how many of them have no vector yet. */
  counts(index: IndexStore, store: VectorStore | null): { chunks: number; embedded: number; pending: number } {
    let coverage = this.coverage.get(index);
    if (!coverage) {
      const live = index.chunks.distinctHashes();
      for (const h of this.wall().deniedHashes) live.delete(h);
      const have = store ? store.hashes() : new Set<string>();
      let pending = 0;
      for (const h of live) if (!have.has(h)) pending++;
      coverage = { chunks: live.size, pending };
      this.coverage.set(index, coverage);
    }
    return { chunks: coverage.chunks, embedded: coverage.chunks - coverage.pending, pending: coverage.pending };
  }

  /**
   * Can vector search serve this index now? Never calls the provider: a recent failure shows as
   * provider_down until the cool-down ends.
   */
  availability(ctx: OpContext): Availability {
    let s: EmbeddingsSettings | null;
    try {
      s = this.settings();
    } catch (err) {
      return { state: "misconfigured", message: (err as Error).message, fix: "fix the embeddings configuration (indx config get)" };
    }
    if (s === null) return { state: "not_configured" };
    let store: VectorStore | null;
    try {
      store = this.vectors(false);
    } catch (err) {
      // An unreadable vectors.db or a missing sqlite-vec never takes lexical search down.
      const e = err instanceof IndxError ? err : new IndxError("ai_unavailable", "The vector store cannot be used.");
      return {
        state: e.code === "index_incompatible" ? "incompatible" : "unusable",
        message: e.message,
        fix: String(e.details?.fix ?? REEMBED_FIX),
      };
    }
    const mismatch = store?.mismatch(s) ?? null;
    if (mismatch) return { state: "incompatible", message: `Vector search is off: ${mismatch}. Run \`${REEMBED_FIX}\`.`, fix: REEMBED_FIX };
    if (!store?.identity())
      return { state: "empty", message: "No chunk has been embedded yet. Run `indx vault index` (or keep `indx serve` running).", fix: "indx vault index" };
    if (Date.now() < this.downUntil)
      return {
        state: "provider_down",
        message: `The embeddings provider (${describeIdentity(s)}) did not answer a moment ago.`,
        fix: "check that the embeddings provider is running (indx vault status)",
      };
    const { chunks, pending } = this.counts(ctx.index, store);
    return { state: "ready", settings: s, store, chunks, pending };
  }

  /** The (normalised) vector of a search query. Throws ProviderError; a failure starts the cool-down. */
  async embedQuery(s: EmbeddingsSettings, q: string): Promise<Float32Array> {
    const key = `${s.provider}\u0000${s.model}\u0000${q}`;
    const hit = this.queryCache.get(key);
    if (hit) {
      this.queryCache.delete(key);
      this.queryCache.set(key, hit);
      return hit;
    }
    try {
      const [v] = await this.provider(s).embed([q], AbortSignal.timeout(Math.min(s.timeoutMs, QUERY_TIMEOUT_MS)), "caller");
      if (v === undefined) throw new IndxError("internal", "The embeddings provider returned no vector for the query.");
      const out = normalize(v);
      const dim = this.store?.identity()?.dim;
      if (dim && out.length !== dim)
        throw new IndxError("index_incompatible", `The model now returns ${out.length}-dimensional vectors, but ${dim} are stored. Run \`${REEMBED_FIX}\`.`, {
          fix: REEMBED_FIX,
        });
      this.queryCache.set(key, out);
      const oldest = this.queryCache.keys().next();
      if (this.queryCache.size > QUERY_CACHE && !oldest.done) this.queryCache.delete(oldest.value);
      this.downUntil = 0;
      return out;
    } catch (err) {
      if (err instanceof ProviderError) this.downUntil = Date.now() + PROVIDER_COOLDOWN_MS;
      throw err;
    }
  }

  /**
   * Embeds what is pending (one run at a time per process; a second caller waits for the first
   * and then runs, so it sees every chunk indexed meanwhile). Null when not configured.
   */
  run(index: IndexStore, opts: { reembed?: boolean; prune?: boolean; signal?: AbortSignal; onProgress?: ProgressFn } = {}): Promise<EmbedReport | null> {
    const next = this.queue.then(async () => {
      const s = this.settings();
      if (s === null) return null;
      if (opts.reembed) {
        this.store?.close();
        this.store = null;
        VectorStore.remove(this.vault.dataDir);
        this.queryCache.clear();
      }
      const store = this.createdVectors();
      let changed = opts.reembed === true;
      if (this.approve && s.price.input > 0) {
        const estimate = estimateRun(index, store, s, this.wall().deniedHashes);
        if (estimate.chunks > 0 && !(await this.approve(estimate))) return notApproved(s, estimate);
      }
      try {
        const report = await embedPending(index, store, this.provider(s), s, {
          batchSize: s.batchSize,
          concurrency: s.concurrency,
          signal: opts.signal,
          onProgress: opts.onProgress ?? this.progress,
          prune: opts.prune,
          backoffMs: this.backoffMs,
          denied: this.wall().deniedHashes,
        });
        changed ||= report.embedded > 0 || report.pruned > 0;
        this.coverage = new WeakMap();
        if (!report.error) await this.measureFusion(index, store, s, opts.signal);
        return report;
      } finally {
        this.coverage = new WeakMap();
        if (changed) for (const fn of this.changeListeners) fn();
      }
    });
    this.queue = next.catch(() => {});
    return next;
  }

  /**
   * Measures how much the vector list should count in `auto` search (src/search/fusion-weight.ts)
   * when these vectors have no measure yet, or one taken on a vault a tenth larger or smaller.
   * A failure leaves the last measure (or none: auto stays lexical) and is logged.
   */
  private async measureFusion(index: IndexStore, store: VectorStore, s: EmbeddingsSettings, signal?: AbortSignal): Promise<void> {
    const { embedded } = this.counts(index, store);
    if (embedded === 0 || decisionCurrent(parseDecision(store.fusion()), embedded)) return;
    const provider = this.provider(s);
    const embed = async (texts: string[]) => {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += s.batchSize) out.push(...(await provider.embed(texts.slice(i, i + s.batchSize), signal)).map(normalize));
      return out;
    };
    try {
      const decision = await measureFusion(index, store, embed, embedded, this.wall().deniedIds);
      store.recordFusion(JSON.stringify(decision));
      logEvent("search.fusion_measured", { weight: decision.weight, queries: decision.queries });
    } catch (err) {
      logEvent("search.fusion_measure_failed", { code: err instanceof IndxError ? err.code : err instanceof ProviderError ? err.kind : "internal" });
    }
  }

  /** The vector list's weight in fusion measured for the stored vectors, or null. */
  fusion(): FusionDecision | null {
    return parseDecision(this.vectors(false)?.fusion() ?? null);
  }

  /**
   * `serve` and MCP stdio: embeds what is pending now and after every index update, in the
   * background (bounded by embeddings.concurrency, never on a request's path). Failures are
   * logged (codes only) and retried with a growing delay. Returns a stop function.
   */
  startBackground(ctx: OpContext): () => void {
    this.keepVectorsWarm();
    let settings: EmbeddingsSettings | null;
    try {
      settings = this.settings();
    } catch (err) {
      logEvent("embeddings.misconfigured", { code: (err as IndxError).code ?? "validation_failed" });
      return () => {};
    }
    if (settings === null) return () => {};
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | null = null;
    let running = false;
    let dirty = false;
    let stopped = false;
    let backoff = 5_000;
    const kick = (delay: number) => {
      if (stopped) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(go, delay);
    };
    const go = async () => {
      timer = null;
      if (running) {
        dirty = true;
        return;
      }
      running = true;
      let retry = false;
      try {
        const r = await this.run(ctx.index, { signal: abort.signal });
        if (r?.error && !stopped) {
          retry = r.error.code !== "index_incompatible";
          logEvent("embeddings.background_failed", { code: r.error.code, pending: r.pending, retry_ms: retry ? backoff : null });
        } else backoff = 5_000;
      } catch (err) {
        logEvent("embeddings.background_failed", { code: err instanceof IndxError ? err.code : "internal" });
      } finally {
        running = false;
      }
      if (dirty) {
        dirty = false;
        kick(0);
      } else if (retry) {
        kick(backoff);
        backoff = Math.min(backoff * 2, 300_000);
      }
    };
    const off = ctx.onIndexUpdate((report) => {
      if (report.changed.length > 0) kick(200);
    });
    kick(0);
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      abort.abort();
      off();
    };
  }

  private probed: { key: string; at: number; result: ProbeResult } | null = null;

  /** Asks the provider for one vector (cached 30 s): is it there, and what dimension. */
  async probe(s: EmbeddingsSettings): Promise<ProbeResult> {
    const key = this.providerKey + JSON.stringify([s.provider, s.baseUrl, s.model]);
    if (this.probed && this.probed.key === key && Date.now() - this.probed.at < PROVIDER_COOLDOWN_MS) return this.probed.result;
    const result = await probeEmbeddings(this.provider(s), Math.min(s.timeoutMs, 5000));
    this.probed = { key, at: Date.now(), result };
    if (result.ok) this.downUntil = 0;
    return result;
  }

  /**
   * Told whenever vectors were added or removed (an embedding run that did something): what
   * search returns may differ although the index did not change (MCP replays, caches).
   */
  onVectorsChanged(fn: () => void): () => void {
    this.changeListeners.add(fn);
    return () => this.changeListeners.delete(fn);
  }

  /** Waits for the current embedding run, if any (tests, shutdown). */
  async idle(): Promise<void> {
    await this.queue;
  }

  close(): void {
    this.store?.close();
    this.store = null;
  }
}
