import { indexIdentity, runIndex, updateIndex, type IndexReport, type ProgressFn } from "../index/indexer.ts";
import { IndexStore } from "../index/store.ts";
import type { Vault } from "../vault/vault.ts";
import type { Scope } from "./define.ts";

/**
 * What an operation runs against: one vault and its index. The CLI makes one per command;
 * `serve` keeps one for its lifetime. The index opens lazily so commands that do not need it
 * (note_exists on a fresh vault, config) never fail with index_missing.
 */
export class OpContext {
  private store: IndexStore | null = null;
  /** Listeners told after every index update (watcher, MCP subscriptions, metrics). */
  private readonly indexListeners = new Set<(report: IndexReport, paths: string[] | null) => void>();

  /** Where long operations report progress (a CLI progress bar, MCP progress notifications). */
  progress: ProgressFn | undefined;

  constructor(
    readonly vault: Vault,
    /** Scopes of the caller; surfaces narrow them per request with `withScopes`. */
    readonly scopes: ReadonlySet<Scope> = new Set(["vault:read", "vault:write", "vault:admin"]),
    private readonly parent?: OpContext,
  ) {}

  /** The same vault and index, seen with other scopes (one per authenticated request). */
  withScopes(scopes: ReadonlySet<Scope>): OpContext {
    const child = new OpContext(this.vault, scopes, this.root);
    child.progress = this.progress;
    return child;
  }

  private get root(): OpContext {
    return this.parent ?? this;
  }

  /** The open index; throws index_missing / index_incompatible with the command that fixes it. */
  get index(): IndexStore {
    const root = this.root;
    if (!root.store) root.store = IndexStore.openExisting(root.vault.indexPath, indexIdentity(root.vault));
    return root.store;
  }

  /** Full pass over the vault (creating or rebuilding the index when needed). */
  reindex(opts: { rebuild?: boolean; onProgress?: ProgressFn } = {}): IndexReport {
    const root = this.root;
    root.store?.close();
    root.store = null;
    const report = runIndex(root.vault, { ...opts, onProgress: opts.onProgress ?? this.progress });
    root.notify(report, null);
    return report;
  }

  /** Incremental pass over the whole vault on the open index (the watcher's fallback). */
  reindexIncremental(): IndexReport {
    const root = this.root;
    const report = updateIndex(root.vault, root.index);
    root.notify(report, null);
    return report;
  }

  /** Re-indexes only these vault-relative paths (changed or deleted). */
  reindexPaths(paths: string[]): IndexReport {
    const root = this.root;
    const report = updateIndex(root.vault, root.index, { only: paths });
    root.notify(report, paths);
    return report;
  }

  onIndexUpdate(fn: (report: IndexReport, paths: string[] | null) => void): () => void {
    const root = this.root;
    root.indexListeners.add(fn);
    return () => root.indexListeners.delete(fn);
  }

  private notify(report: IndexReport, paths: string[] | null): void {
    for (const fn of this.indexListeners) fn(report, paths);
  }

  close(): void {
    this.root.store?.close();
    this.root.store = null;
  }
}
