import { type FSWatcher, watch } from "node:fs";
import { logEvent } from "../core/log.ts";
import type { OpContext } from "../ops/context.ts";

const TARGETED_LIMIT = 200;

/**
 * Keeps the index current while `serve` runs: file events are coalesced for `debounceMs`, then
 * re-indexed. A burst of plain file changes re-indexes just those paths; anything else (folder
 * renames, overflow) triggers an incremental pass over the whole vault, which only re-reads what
 * changed. Readers keep the last good index meanwhile (WAL).
 */
export class VaultWatcher {
  private watcher: FSWatcher | null = null;
  private pending = new Set<string>();
  private fullPass = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running = false;

  constructor(
    private readonly ctx: OpContext,
    private readonly debounceMs: number,
  ) {}

  start(): void {
    const ex = this.ctx.vault.exclusions;
    this.watcher = watch(this.ctx.vault.root, { recursive: true }, (_event, filename) => {
      if (!filename) {
        this.fullPass = true;
      } else {
        const rel = String(filename).split("\\").join("/").normalize("NFC");
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

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.debounceMs);
  }

  /** Runs now whatever is pending (tests and shutdown use it). */
  flush(): void {
    this.timer = null;
    if (this.running) return this.schedule();
    const paths = [...this.pending];
    const full = this.fullPass || paths.length > TARGETED_LIMIT || paths.some((p) => !/\.[^/]+$/.test(p));
    this.pending.clear();
    this.fullPass = false;
    if (!full && paths.length === 0) return;
    this.running = true;
    try {
      const r = full ? this.ctx.reindexIncremental() : this.ctx.reindexPaths(paths);
      if (r.added + r.updated + r.deleted > 0) logEvent("index.updated", { added: r.added, updated: r.updated, deleted: r.deleted, ms: r.durationMs, full });
    } catch (err) {
      logEvent("index.update_failed", { code: (err as { code?: string }).code ?? "internal" });
    } finally {
      this.running = false;
    }
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.watcher?.close();
    this.watcher = null;
  }
}
