import { AiService } from "../ai/service.ts";
import type { AiStreamSink } from "../ai/stream.ts";
import type { ProgressFn } from "../core/progress.ts";
import { EmbeddingService } from "../embeddings/service.ts";
import { EventHub } from "../events/hub.ts";
import { EventLog } from "../events/log.ts";
import { IndexConnection } from "../index/connection.ts";
import type { IndexReport } from "../index/indexer.ts";
import { type IndexJob, type IndexRunner, InlineIndexRunner } from "../index/jobs.ts";
import type { IndexStore } from "../index/store.ts";
import { WorkerIndexRunner } from "../index/worker-runner.ts";
import type { Vault } from "../vault/vault.ts";
import { IdempotencyStore } from "../writes/idempotency.ts";
import { VaultWriter } from "../writes/pipeline.ts";
import type { Scope } from "./define.ts";

/** Who caused an index update: a write through indx (which emits its own events) or anything else. */
export type UpdateOrigin = "write" | "watch" | "full";
export type IndexListener = (report: IndexReport, paths: string[] | null, origin: UpdateOrigin) => void;

/**
 * What an operation runs against: one vault and its index. The CLI makes one per command;
 * `serve` keeps one for its lifetime. The index opens lazily so commands that do not need it
 * (note_exists on a fresh vault, config) never fail with index_missing.
 */
export class OpContext {
  /** The read connection; with the inline runner, index passes write through it too. */
  private readonly connection: IndexConnection;
  private indexRunner: IndexRunner | null = null;
  /** Listeners told after every index update (watcher, MCP subscriptions, metrics). */
  private readonly indexListeners = new Set<IndexListener>();
  private eventHub: EventHub | null = null;
  private vaultWriter: VaultWriter | null = null;
  private idempotencyStore: IdempotencyStore | null = null;
  private embeddingService: EmbeddingService | null = null;
  private stopInvalidatingCoverage: (() => void) | null = null;
  private aiService: AiService | null = null;
  private stopInvalidatingAiCache: (() => void) | null = null;

  /** Where long operations report progress (a CLI progress bar, MCP progress notifications). */
  progress: ProgressFn | undefined;
  /** Aborted when the caller gives up (MCP notifications/cancelled): long work stops at its next step. */
  signal: AbortSignal | undefined;
  /** Where an AI operation streams its partial output, when the caller asked for a stream. */
  aiStream: AiStreamSink | undefined;

  constructor(
    readonly vault: Vault,
    /** Scopes of the caller; surfaces narrow them per request with `withScopes`. */
    readonly scopes: ReadonlySet<Scope> = new Set(["vault:read", "vault:write", "vault:admin"]),
    private readonly parent?: OpContext,
  ) {
    this.connection = parent?.connection ?? new IndexConnection(vault);
  }

  /** The same vault and index, seen with other scopes (one per authenticated request). */
  withScopes(scopes: ReadonlySet<Scope>): OpContext {
    const child = new OpContext(this.vault, scopes, this.root);
    child.progress = this.progress;
    return child;
  }

  private get root(): OpContext {
    return this.parent ?? this;
  }

  /**
   * The open index; throws index_missing / index_incompatible with the command that fixes it. A
   * file deleted or rebuilt under a long-running process is opened again, if there is one.
   */
  get index(): IndexStore {
    return this.connection.open();
  }

  /**
   * From now on index passes run in a worker thread (`serve`, `indx mcp`): this thread keeps
   * answering reads from the last committed index meanwhile. Every index write of the process
   * must then go through updateIndex(), or it would wait on the worker's write lock.
   */
  useIndexWorker(): void {
    const root = this.root;
    root.indexRunner?.close();
    root.indexRunner = new WorkerIndexRunner(root.vault);
  }

  /**
   * Brings the index in line with the disk (IndexJob: some paths, an incremental pass, a build),
   * then tells the listeners, on this thread. `origin` says who caused it; by default a build is
   * "full" and anything else "watch". Progress and cancellation are the caller's to pass: a
   * write's reindex, say, must not stop because its caller went away after the file landed.
   */
  async updateIndex(job: IndexJob, opts: { origin?: UpdateOrigin; onProgress?: ProgressFn; signal?: AbortSignal } = {}): Promise<IndexReport> {
    const root = this.root;
    root.indexRunner ??= new InlineIndexRunner(root.vault, root.connection);
    const report = await root.indexRunner.run(job, { onProgress: opts.onProgress, signal: opts.signal });
    root.notify(report, "paths" in job ? job.paths : null, opts.origin ?? ("build" in job ? "full" : "watch"));
    return report;
  }

  /** Events of this vault: every write, and every change seen on disk (docs/contracts.md, Events). */
  get events(): EventHub {
    const root = this.root;
    return (root.eventHub ??= new EventHub(new EventLog(root.vault.ensureDataDir())));
  }

  /** The write pipeline; one per vault per process, so its locks see every writer here. */
  get writer(): VaultWriter {
    const root = this.root;
    return (root.vaultWriter ??= new VaultWriter(root));
  }

  /** Embeddings of this vault: provider, vector store, embedding runs. Opens nothing until used. */
  get embeddings(): EmbeddingService {
    const root = this.root;
    if (!root.embeddingService) {
      const service = new EmbeddingService(
        root.vault,
        () => root.index,
        () => root.ai.spend,
      );
      root.stopInvalidatingCoverage = root.onIndexUpdate(() => service.indexChanged());
      root.embeddingService = service;
    }
    return root.embeddingService;
  }

  /** The AI runtime of this vault: settings, chat model, cache, spend. Opens nothing until used. */
  get ai(): AiService {
    const root = this.root;
    if (!root.aiService) {
      const service = new AiService(root.vault, () => root.index);
      const stopIndex = root.onIndexUpdate((report) => service.notesChanged(report.changed));
      const stopVectors = root.embeddings.onVectorsChanged(() => service.vectorsChanged());
      root.stopInvalidatingAiCache = () => {
        stopIndex();
        stopVectors();
      };
      root.aiService = service;
    }
    return root.aiService;
  }

  get idempotency(): IdempotencyStore {
    const root = this.root;
    return (root.idempotencyStore ??= new IdempotencyStore(root.vault.ensureDataDir()));
  }

  onIndexUpdate(fn: IndexListener): () => void {
    const root = this.root;
    root.indexListeners.add(fn);
    return () => root.indexListeners.delete(fn);
  }

  /**
   * An index update that another thread's context made and announced (a reader worker hears of
   * the main thread's): the listeners drop their caches, but no event is emitted, since the
   * thread that made the update emits them.
   */
  indexUpdatedElsewhere(report: IndexReport, paths: string[] | null, origin: UpdateOrigin): void {
    this.root.tellListeners(report, paths, origin);
  }

  private tellListeners(report: IndexReport, paths: string[] | null, origin: UpdateOrigin): void {
    for (const fn of this.indexListeners) fn(report, paths, origin);
  }

  private notify(report: IndexReport, paths: string[] | null, origin: UpdateOrigin): void {
    // Listeners first (caches are dropped), then events: whoever reacts to an event reads fresh data.
    this.tellListeners(report, paths, origin);
    if (report.changed.length > 0) this.emitIndexEvents(report, origin);
  }

  /** Changes indx did not make itself (an editor, sync, git) become events too. */
  private emitIndexEvents(report: IndexReport, origin: UpdateOrigin): void {
    // A build from scratch is not a change on disk: it gets the summary event only.
    if (origin !== "write" && report.rebuilt === null) {
      const added = new Set(report.addedPaths);
      const deleted = new Set(report.deletedPaths);
      for (const path of report.changed) {
        const kind = added.has(path) ? "note.created" : deleted.has(path) ? "note.deleted" : "note.updated";
        this.events.emit({ kind, source: "external", path });
      }
    }
    this.events.emit({
      kind: "index.updated",
      source: origin === "write" ? "indx" : "external",
      count: report.changed.length,
      duration_ms: report.durationMs,
    });
  }

  close(): void {
    const root = this.root;
    root.indexRunner?.close();
    root.connection.release();
    root.idempotencyStore?.close();
    root.idempotencyStore = null;
    root.stopInvalidatingCoverage?.();
    root.stopInvalidatingCoverage = null;
    root.embeddingService?.close();
    root.embeddingService = null;
    root.stopInvalidatingAiCache?.();
    root.stopInvalidatingAiCache = null;
    root.aiService?.close();
    root.aiService = null;
  }
}
