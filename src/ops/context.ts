import type { AiService } from "../ai/service.ts";
import type { AiStreamSink } from "../ai/stream.ts";
import type { IndxError } from "../core/errors.ts";
import type { ProgressFn } from "../core/progress.ts";
import type { EmbeddingService } from "../embeddings/service.ts";
import type { EventHub } from "../events/hub.ts";
import type { IndexReport } from "../index/build/indexer.ts";
import type { IndexJob } from "../index/build/jobs.ts";
import type { IndexStore } from "../index/storage/store.ts";
import type { Vault } from "../vault/vault.ts";
import type { IdempotencyStore } from "../writes/idempotency.ts";
import type { VaultWriter } from "../writes/pipeline.ts";
import type { Scope } from "./define.ts";
import type { Grant } from "./grant.ts";

/** Who caused an index update: a write through indx (which emits its own events) or anything else. */
export type UpdateOrigin = "write" | "watch" | "full";
/** The surface a call came through and, over HTTP, the token's id (never the token). */
export interface Caller {
  surface: "cli" | "rest" | "mcp";
  token_id?: string;
}

/**
 * One vault of the server as vault_list shows it (docs/decisions.md, "vault_list"). `folder` is
 * the path as written in the config file: the CLI shows it, REST and MCP never carry it.
 */
export interface VaultEntry {
  /** The `[vaults.<name>]` name; null for a default vault that no table names. */
  name: string | null;
  default: boolean;
  state: "open" | "not_opened" | "missing" | "error";
  /** The typed error of a vault that did not open (state "error"). */
  error?: string;
  /** Notes in its index, when open. */
  notes?: number;
  folder?: string;
}

/**
 * The vaults a process serves, filled by the composition root (src/app): an operation cannot
 * reach the server's registry itself. `list` shows the caller only what it may know of: every
 * vault for the server's owner, its own vault for a vault's token.
 */
export interface VaultDirectory {
  list(caller: Caller | undefined): Promise<VaultEntry[]>;
}

export type IndexListener = (report: IndexReport, paths: string[] | null, origin: UpdateOrigin) => void;

/**
 * Notes named as a person or an agent names them (docs/contracts.md, Paths), among what the call
 * may see: invokeOp resolves a read's `path` / `paths` through it, so every surface does alike.
 * The composition root implements it (src/app/note-names.ts).
 */
export interface NoteNames {
  /** The path to use for `typed`: the file at that path, else the note [[typed]] resolves to, else `typed`. */
  resolve(typed: string): string;
  /** A not_found error about `typed` with the closest paths as suggestions ("Did you mean …?"), or `err` as it was. */
  suggest(err: IndxError, typed: string): IndxError;
}

/** What one call brings besides its input: who calls, and where its progress, stream and cancellation go. */
export interface CallOptions {
  /** Scopes of the caller (docs/contracts.md, Auth); every scope when left out (the CLI, a test). */
  scopes?: ReadonlySet<Scope>;
  /** Aborted when the caller gives up (MCP notifications/cancelled): long work stops at its next step. */
  signal?: AbortSignal;
  /** Where long operations report progress (a CLI progress bar, MCP progress notifications). */
  progress?: ProgressFn;
  /** Where an AI operation streams its partial output, when the caller asked for a stream. */
  aiStream?: AiStreamSink;
  /** Who calls: the surface and, over HTTP, the token's id (the ai.invocation event names them). */
  caller?: Caller;
  /**
   * The caller's folder grant (docs/permissions.md), compiled (src/vault/grant.ts); none: the
   * whole vault. The context then hands the operation a view of the index with only what the
   * grant may read, and a writer that refuses any change outside what it may write.
   */
  grant?: Grant | null;
}

/**
 * What an operation may use (docs/architecture.md): one vault, its index and its services, and the
 * call's own fields. The composition root (src/app/context.ts) builds the services; an operation
 * names the part it needs (`Pick<OpContext, "index" | "ai">`), so a unit test can hand it fakes.
 * Every field is fixed for the call: nothing is assigned after the context is made.
 */
export interface OpContext {
  readonly vault: Vault;
  readonly scopes: ReadonlySet<Scope>;
  readonly signal: AbortSignal | undefined;
  readonly progress: ProgressFn | undefined;
  readonly aiStream: AiStreamSink | undefined;
  readonly caller: Caller | undefined;
  /** The caller's folder grant, or null for the whole vault (docs/permissions.md). */
  readonly grant: Grant | null;
  /**
   * This call's context over the whole index, its writer still guarded: a write plans against
   * every note (a move must see each link it would rewrite), so a plan that would touch a note
   * outside the grant is refused whole rather than applied in part (src/ops/invoke.ts).
   */
  wholeIndex(): OpContext;
  /** The open index (with a grant: only what it may read); throws index_missing / index_incompatible with the command that fixes it. */
  readonly index: IndexStore;
  /** Note names resolved over `index` (so a hidden note is neither a match nor a suggestion). */
  readonly noteNames: NoteNames;
  /** The write pipeline; one per vault per process, so its locks see every writer here. */
  readonly writer: VaultWriter;
  /**
   * How many times `index` has been read on this vault's contexts in this thread: a write's plan
   * that read it while earlier writes were not indexed yet is made again once they are
   * (src/writes/pipeline.ts). Unknown in a context that does not count: such a plan always waits.
   */
  readonly indexReads?: number;
  /** Events of this vault: every write, and every change seen on disk (docs/contracts.md, Events). */
  readonly events: EventHub;
  /** Embeddings of this vault: provider, vector store, embedding runs. */
  readonly embeddings: EmbeddingService;
  /** The AI runtime of this vault: settings, chat model, cache, spend. */
  readonly ai: AiService;
  /** The vaults this process serves (vault_list). */
  readonly vaults: VaultDirectory;
  /** Stored answers of writes sent with an idempotency key (docs/contracts.md, Idempotency). */
  readonly idempotency: IdempotencyStore;
  /**
   * Brings the index in line with the disk, then tells the listeners. `origin` says who caused
   * it; by default a build is "full" and anything else "watch".
   */
  updateIndex(job: IndexJob, opts?: { origin?: UpdateOrigin; onProgress?: ProgressFn; signal?: AbortSignal }): Promise<IndexReport>;
  /** Called after every index update of this vault in this thread; returns the unsubscribe. */
  onIndexUpdate(fn: IndexListener): () => void;
}
