import { type FSWatcher, watch } from "node:fs";
import { errnoOf } from "../../core/errno.ts";
import { logEvent } from "../../core/log.ts";
import type { OpContext } from "../../ops/context.ts";
import type { IndexJob } from "./jobs.ts";

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
  /** The pass under way, if any: one at a time. */
  private running: Promise<void> | null = null;

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

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), this.debounceMs);
  }

  /** Indexes now whatever is pending, after the pass under way (tests use it); resolves when done. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.running) await this.running;
    const paths = [...this.pending];
    const full = this.fullPass || paths.length > TARGETED_LIMIT || paths.some((p) => !/\.[^/]+$/.test(p));
    this.pending.clear();
    this.fullPass = false;
    if (!full && paths.length === 0) return;
    this.running = this.update(full ? { full: true } : { paths }).finally(() => (this.running = null));
    await this.running;
  }

  private async update(job: IndexJob): Promise<void> {
    try {
      const r = await this.ctx.updateIndex(job);
      if (r.added + r.updated + r.deleted > 0)
        logEvent("index.updated", { added: r.added, updated: r.updated, deleted: r.deleted, ms: r.durationMs, full: "full" in job });
    } catch (err) {
      logEvent("index.update_failed", { code: errnoOf(err) ?? "internal" });
    }
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.watcher?.close();
    this.watcher = null;
  }
}

/** A watcher's file name as a vault path: Windows reports backslashes, macOS decomposed (NFD) names. */
export function watchedPath(filename: string): string {
  return filename.split("\\").join("/").normalize("NFC");
}
