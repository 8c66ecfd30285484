import { type FSWatcher, watch } from "node:fs";
import { fileIdentity } from "../../core/file-identity.ts";
import { logEvent } from "../../core/log.ts";
import type { OpContext } from "../../ops/context.ts";
import type { IndexJob } from "./jobs.ts";

const TARGETED_LIMIT = 200;
/** How often a vault folder that went away is looked for. */
const ROOT_POLL_MS = 1000;
/** After a failed pass the watcher retries after this long, doubling up to RETRY_MAX_MS while it keeps failing. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 30_000;

/**
 * Keeps the index current while `serve` runs: file events are coalesced for `debounceMs`, then
 * re-indexed. A burst of plain file changes re-indexes just those paths; anything else (folder
 * renames, overflow) triggers an incremental pass over the whole vault, which only re-reads what
 * changed. Readers keep the last good index meanwhile (WAL). A pass that fails (SQLITE_BUSY from
 * another process's long write, a full disk) puts its paths back and is tried again with a growing
 * pause: an outside edit is never dropped, and subscribers hear of it once it is indexed.
 */
export class VaultWatcher {
  private watcher: FSWatcher | null = null;
  private pending = new Set<string>();
  private fullPass = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** The pass under way, if any: one at a time. */
  private running: Promise<void> | null = null;
  /** The wait before the next retry of a failed pass; 0 after a pass that succeeded. */
  private retryMs = 0;
  private failures = 0;

  /** Which folder the watch is on (device and inode): a vault folder deleted and made again is another one; null while it is gone. */
  private rootIdentity: string | null = null;
  /** Looks every rootPollMs whether the vault folder is still the one watched (docs/decisions.md, "A vault folder that goes away"). */
  private rootCheck: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly ctx: OpContext,
    private readonly debounceMs: number,
    private readonly rootPollMs = ROOT_POLL_MS,
  ) {}

  start(): void {
    this.rootCheck ??= setInterval(() => {
      if (fileIdentity(this.ctx.vault.root) !== this.rootIdentity) this.schedule(0);
    }, this.rootPollMs);
    this.rootCheck.unref?.();
    this.rootIdentity = fileIdentity(this.ctx.vault.root);
    if (this.rootIdentity === null) return;
    const ex = this.ctx.vault.exclusions;
    this.watcher = watch(this.ctx.vault.root, { recursive: true }, (_event, filename) => {
      if (!filename) {
        this.fullPass = true;
      } else {
        const rel = watchedPath(String(filename));
        if (ex.excludes(rel)) return;
        this.pending.add(rel);
      }
      this.schedule();
    });
    this.watcher.on("error", () => {
      this.fullPass = true;
      this.schedule();
    });
  }

  /** A pass after `ms` (the debounce, or a retry's pause while passes fail: new events do not cut that short). */
  private schedule(ms = Math.max(this.debounceMs, this.retryMs)): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), ms);
  }

  /**
   * The vault folder is gone, or another folder stands at its path, and the watch on it hears
   * nothing more. While it is gone no pass runs (a pass over a missing folder would prune the whole
   * index; reads and writes answer vault_missing meanwhile). Once a folder is there again — a
   * restore, a remount, a sync that made it anew — it is watched again and a full pass catches up.
   * Returns whether a pass may run now.
   */
  private followRoot(): boolean {
    const now = fileIdentity(this.ctx.vault.root);
    if (now !== null && now === this.rootIdentity) return true;
    this.watcher?.close();
    this.watcher = null;
    this.pending.clear();
    if (now === null) {
      if (this.rootIdentity !== null) logEvent("watch.vault_missing", {});
      this.rootIdentity = null;
      this.fullPass = false;
      return false;
    }
    logEvent("watch.vault_back", {});
    this.start();
    this.fullPass = true;
    return true;
  }

  /** Indexes now whatever is pending, after the pass under way (tests use it); resolves when done. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.running) await this.running;
    if (!this.followRoot()) return;
    const paths = [...this.pending];
    const full = this.fullPass || paths.length > TARGETED_LIMIT || paths.some((p) => !/\.[^/]+$/.test(p));
    this.pending.clear();
    this.fullPass = false;
    if (!full && paths.length === 0) return;
    this.running = this.update(full ? { full: true } : { paths }).finally(() => (this.running = null));
    await this.running;
  }

  /** Passes that failed since the watcher started (each is retried). */
  get failedPasses(): number {
    return this.failures;
  }

  private async update(job: IndexJob): Promise<void> {
    try {
      const r = await this.ctx.updateIndex(job);
      this.retryMs = 0;
      if (r.added + r.updated + r.deleted > 0)
        logEvent("index.updated", { added: r.added, updated: r.updated, deleted: r.deleted, ms: r.durationMs, full: "full" in job });
    } catch (err) {
      this.failures++;
      this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs === 0 ? RETRY_FIRST_MS : this.retryMs * 2);
      logEvent("index.update_failed", { code: (err as { code?: string }).code ?? "internal", retry_ms: this.retryMs });
      if ("paths" in job) for (const p of job.paths) this.pending.add(p);
      else this.fullPass = true;
      if (this.watcher) this.schedule(this.retryMs);
    }
  }

  stop(): void {
    if (this.rootCheck) clearInterval(this.rootCheck);
    this.rootCheck = null;
    if (this.timer) clearTimeout(this.timer);
    this.watcher?.close();
    this.watcher = null;
  }
}

/** A watcher's file name as a vault path: Windows reports backslashes, macOS decomposed (NFD) names. */
export function watchedPath(filename: string): string {
  return filename.split("\\").join("/").normalize("NFC");
}
