import { AiService } from "../ai/service.ts";
import type { AiStreamSink } from "../ai/stream.ts";
import type { ProgressFn } from "../core/progress.ts";
import { EmbeddingService } from "../embeddings/service.ts";
import { EventHub } from "../events/hub.ts";
import { EventLog } from "../events/log.ts";
import type { IndexReport } from "../index/build/indexer.ts";
import { type IndexJob, type IndexRunner, InlineIndexRunner } from "../index/build/jobs.ts";
import { WorkerIndexRunner } from "../index/build/worker-runner.ts";
import { IndexConnection } from "../index/storage/connection.ts";
import type { IndexStore } from "../index/storage/store.ts";
import type { Caller, CallOptions, IndexListener, NoteNames, OpContext, UpdateOrigin, VaultDirectory } from "../ops/context.ts";
import type { Scope } from "../ops/define.ts";
import type { Grant } from "../ops/grant.ts";
import type { Vault } from "../vault/vault.ts";
import { IdempotencyStore } from "../writes/idempotency.ts";
import { VaultWriter } from "../writes/pipeline.ts";
import { noteNamesOf } from "./note-names.ts";
import { appState, VaultDirectoryOf } from "./vault-directory.ts";

const EVERY_SCOPE: ReadonlySet<Scope> = new Set(["vault:read", "vault:write", "vault:admin"]);

/**
 * The composition root of one vault (docs/architecture.md): it builds the index connection and
 * runners, the writer, the events, the embeddings and AI services, each once, when first used.
 * The CLI makes one per command; `serve` and `indx mcp` keep one for their lifetime; only the
 * surfaces, the reader worker and tests construct it. An App is itself the context of a call with
 * every scope and nothing else (the CLI's case); `forCall` makes the context of any other call.
 * The index opens lazily so commands that do not need it (note_exists on a fresh vault, config)
 * never fail with index_missing.
 */
export class App implements OpContext {
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
  private indexReadCount = 0;
  private stopInvalidatingAiCache: (() => void) | null = null;
  private directory: VaultDirectory | null = null;

  readonly scopes: ReadonlySet<Scope> = EVERY_SCOPE;
  readonly signal: AbortSignal | undefined = undefined;
  readonly progress: ProgressFn | undefined = undefined;
  readonly aiStream: AiStreamSink | undefined = undefined;
  readonly grant: Grant | null = null;

  constructor(
    readonly vault: Vault,
    /** Who calls when a call names nobody: the CLI's own commands say "cli". */
    readonly caller: Caller | undefined = undefined,
  ) {
    this.connection = new IndexConnection(vault);
  }

  /** The context of one call: this vault and its services, with the caller's scopes, grant, signal, progress and stream. */
  forCall(opts: CallOptions): OpContext {
    return new CallContext(this, opts, false);
  }

  wholeIndex(): OpContext {
    return this;
  }

  /** The index as a folder grant sees it (docs/permissions.md); throws as `index` does. */
  indexFor(grant: Grant): IndexStore {
    return this.connection.openFor(grant);
  }

  /**
   * The open index; throws index_missing / index_incompatible with the command that fixes it. A
   * file deleted or rebuilt under a long-running process is opened again, if there is one.
   */
  get index(): IndexStore {
    this.indexReadCount++;
    return this.connection.open();
  }

  get indexReads(): number {
    return this.indexReadCount;
  }

  get noteNames(): NoteNames {
    return noteNamesOf(this);
  }

  /**
   * From now on index passes run in a worker thread (`serve`, `indx mcp`): this thread keeps
   * answering reads from the last committed index meanwhile. Every index write of the process
   * must then go through updateIndex(), or it would wait on the worker's write lock.
   */
  useIndexWorker(): void {
    this.indexRunner?.close();
    this.indexRunner = new WorkerIndexRunner(this.vault);
  }

  /**
   * Brings the index in line with the disk (IndexJob: some paths, an incremental pass, a build),
   * then tells the listeners, on this thread. `origin` says who caused it; by default a build is
   * "full" and anything else "watch". Progress and cancellation are the caller's to pass: a
   * write's reindex, say, must not stop because its caller went away after the file landed.
   */
  async updateIndex(job: IndexJob, opts: { origin?: UpdateOrigin; onProgress?: ProgressFn; signal?: AbortSignal } = {}): Promise<IndexReport> {
    this.indexRunner ??= new InlineIndexRunner(this.vault, this.connection);
    const report = await this.indexRunner.run(job, { onProgress: opts.onProgress, signal: opts.signal });
    this.notify(report, "paths" in job ? job.paths : null, opts.origin ?? ("build" in job ? "full" : "watch"));
    return report;
  }

  /** Events of this vault: every write, and every change seen on disk (docs/contracts.md, Events). */
  get events(): EventHub {
    return (this.eventHub ??= new EventHub(new EventLog(this.vault.ensureDataDir())));
  }

  /** The write pipeline; one per vault per process, so its locks see every writer here. */
  get writer(): VaultWriter {
    return (this.vaultWriter ??= new VaultWriter(this));
  }

  /** Embeddings of this vault: provider, vector store, embedding runs. Opens nothing until used. */
  get embeddings(): EmbeddingService {
    if (!this.embeddingService) {
      const service = new EmbeddingService(
        this.vault,
        () => this.index,
        () => this.ai.spend,
      );
      this.stopInvalidatingCoverage = this.onIndexUpdate(() => service.indexChanged());
      this.embeddingService = service;
    }
    return this.embeddingService;
  }

  /** The AI runtime of this vault: settings, chat model, cache, spend. Opens nothing until used. */
  get ai(): AiService {
    if (!this.aiService) {
      const service = new AiService(this.vault, () => this.index);
      const stopIndex = this.onIndexUpdate((report) => service.notesChanged(report.changed));
      const stopVectors = this.embeddings.onVectorsChanged(() => service.vectorsChanged());
      this.stopInvalidatingAiCache = () => {
        stopIndex();
        stopVectors();
      };
      this.aiService = service;
    }
    return this.aiService;
  }

  /**
   * The vaults of this process (vault_list). Alone (the CLI, stdio MCP), this vault and the config
   * file's named vaults, each opened for the call to count its notes; `indx serve` hands its own.
   */
  get vaults(): VaultDirectory {
    this.directory ??= new VaultDirectoryOf(this, async (_name, vault) => {
      const other = new App(vault);
      try {
        return appState(other);
      } finally {
        other.close();
      }
    }).forVault(null);
    return this.directory;
  }

  /** The server's view of its vaults, as this vault's calls see it (src/http/serve.ts). */
  useVaults(directory: VaultDirectory): void {
    this.directory = directory;
  }

  get idempotency(): IdempotencyStore {
    return (this.idempotencyStore ??= new IdempotencyStore(this.vault.ensureDataDir()));
  }

  onIndexUpdate(fn: IndexListener): () => void {
    this.indexListeners.add(fn);
    return () => this.indexListeners.delete(fn);
  }

  /**
   * An index update that another thread's context made and announced (a reader worker hears of
   * the main thread's): the listeners drop their caches, but no event is emitted, since the
   * thread that made the update emits them.
   */
  indexUpdatedElsewhere(report: IndexReport, paths: string[] | null, origin: UpdateOrigin): void {
    const failed = this.tellListeners(report, paths, origin);
    if (failed) throw failed.error;
  }

  /** Every listener hears of the update, whichever failed before it; the first failure is returned. */
  private tellListeners(report: IndexReport, paths: string[] | null, origin: UpdateOrigin): { error: unknown } | null {
    let failed: { error: unknown } | null = null;
    for (const fn of this.indexListeners) {
      try {
        fn(report, paths, origin);
      } catch (error) {
        failed ??= { error };
      }
    }
    return failed;
  }

  private notify(report: IndexReport, paths: string[] | null, origin: UpdateOrigin): void {
    // Listeners first (caches are dropped), then events: whoever reacts to an event reads fresh data.
    const failed = this.tellListeners(report, paths, origin);
    // The update is committed whatever a listener did: its events go out, or no retry would ever
    // announce it (the next pass finds the files indexed and changes nothing). The failure is then
    // the caller's to see, as the watcher's failed pass (logged, tried again).
    if (report.changed.length > 0) this.emitIndexEvents(report, origin);
    if (failed) throw failed.error;
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
    this.indexRunner?.close();
    this.connection.release();
    this.idempotencyStore?.close();
    this.idempotencyStore = null;
    this.stopInvalidatingCoverage?.();
    this.stopInvalidatingCoverage = null;
    this.embeddingService?.close();
    this.embeddingService = null;
    this.stopInvalidatingAiCache?.();
    this.stopInvalidatingAiCache = null;
    this.aiService?.close();
    this.aiService = null;
  }
}

/** One call's context: the App's services, the call's own fields, all fixed at construction. */
class CallContext implements OpContext {
  readonly scopes: ReadonlySet<Scope>;
  readonly signal: AbortSignal | undefined;
  readonly progress: ProgressFn | undefined;
  readonly aiStream: AiStreamSink | undefined;
  readonly caller: Caller | undefined;
  readonly grant: Grant | null;
  private callWriter: VaultWriter | null = null;

  constructor(
    private readonly app: App,
    private readonly opts: CallOptions,
    /** This call plans a write: it reads the whole index, its writer guarded (OpContext.wholeIndex). */
    private readonly whole: boolean,
  ) {
    this.scopes = opts.scopes ?? EVERY_SCOPE;
    this.signal = opts.signal;
    this.progress = opts.progress;
    this.aiStream = opts.aiStream;
    this.caller = opts.caller ?? app.caller;
    this.grant = opts.grant ?? null;
    Object.seal(this);
  }

  wholeIndex(): OpContext {
    return this.grant && !this.whole ? new CallContext(this.app, this.opts, true) : this;
  }

  get vault(): Vault {
    return this.app.vault;
  }
  get index(): IndexStore {
    return this.grant && !this.whole ? this.app.indexFor(this.grant) : this.app.index;
  }
  get indexReads(): number {
    return this.app.indexReads;
  }
  get noteNames(): NoteNames {
    return noteNamesOf(this);
  }
  /** The vault's writer as this call may use it: its signal leaves the queue, its grant checks every change, its events name the caller. */
  get writer(): VaultWriter {
    this.callWriter ??= this.app.writer.forCall({ signal: this.signal, grant: this.grant, caller: this.caller });
    return this.callWriter;
  }
  get events(): EventHub {
    return this.app.events;
  }
  get embeddings(): EmbeddingService {
    return this.app.embeddings;
  }
  get ai(): AiService {
    return this.app.ai;
  }
  get idempotency(): IdempotencyStore {
    return this.app.idempotency;
  }
  get vaults(): VaultDirectory {
    return this.app.vaults;
  }
  updateIndex(job: IndexJob, opts?: { origin?: UpdateOrigin; onProgress?: ProgressFn; signal?: AbortSignal }): Promise<IndexReport> {
    return this.app.updateIndex(job, opts);
  }
  onIndexUpdate(fn: IndexListener): () => void {
    return this.app.onIndexUpdate(fn);
  }
}
