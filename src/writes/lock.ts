import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { errnoOf } from "../core/errno.ts";
import { IndxError } from "../core/errors.ts";

/** The error of a wait given up because its caller went away (an MCP cancel, a client that hung up). */
export function waitCancelled(): IndxError {
  return new IndxError("cancelled", "The write was cancelled while it waited for its turn; nothing was written.", { reason: "cancelled" });
}

/**
 * Per-path locks inside one process. Writes to different notes proceed independently; writes
 * to the same note queue in arrival order. Paths are taken in sorted order so two multi-file
 * writes (a move and a tag rename) can never deadlock. A wait ends early when `signal` aborts:
 * the turn it held in the chain passes on as soon as it comes, so the writers behind it still go.
 */
export class PathLocks {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(paths: readonly string[], fn: () => Promise<T> | T, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) throw waitCancelled();
    const keys = [...new Set(paths.map((p) => p.toLowerCase()))].sort();
    const releases: (() => void)[] = [];
    try {
      for (const key of keys) releases.push(await this.acquire(key, signal));
      return await fn();
    } finally {
      for (const release of releases.reverse()) release();
    }
  }

  private acquire(key: string, signal: AbortSignal | undefined): Promise<() => void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const mine = Promise.withResolvers<void>();
    const tail = previous.then(() => mine.promise);
    this.tails.set(key, tail);
    const release = () => {
      mine.resolve();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
    if (!signal) return previous.then(() => release);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        reject(waitCancelled());
        void previous.then(release);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      void previous.then(() => {
        if (signal.aborted) return; // onAbort ran: its turn is passed on
        signal.removeEventListener("abort", onAbort);
        resolve(release);
      });
    });
  }
}

/** How long a "waiting" notice counts: a waiter renews it at every poll, so an older one is a waiter that gave up or died. */
const WANT_FRESH_MS = 1000;
/** A waiter renews its notice at most this often. */
const WANT_RENEW_MS = 100;

/**
 * One writer at a time across processes (a CLI command next to a running server): an exclusive
 * lock file in the data directory holding the owner's pid. A lock whose owner died (SIGKILL
 * leaves it behind) is taken over. These are the primitives; WriterQueue (queue.ts) decides when
 * to take and give back the file, and how long to wait.
 *
 * A process waiting for the file says so in a second file, `write.lock.wait` (its own id, renewed
 * while it waits), so the holder of a run of writes hands the lock over at its next turn instead
 * of when its queue drains (docs/decisions.md, "One queue of writers per vault").
 */
export class VaultWriteLock {
  private readonly file: string;
  private readonly wantFile: string;
  /** Tells this lock's notices from another's, also another App of this same process. */
  private readonly id = `${process.pid}:${crypto.randomUUID()}`;
  private wantWrittenAt = 0;
  held = false;

  constructor(dataDir: string) {
    this.file = join(dataDir, "write.lock");
    this.wantFile = join(dataDir, "write.lock.wait");
  }

  /** Takes the file if it is free or its owner is dead; false while a live owner has it. */
  tryAcquire(): boolean {
    if (this.held) return true;
    try {
      const fd = openSync(this.file, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      this.held = true;
      return true;
    } catch (err) {
      const code = errnoOf(err);
      // The data folder was deleted under a running process: make it again and retry.
      if (code === "ENOENT") {
        mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
        return false;
      }
      if (code !== "EEXIST") throw err;
    }
    if (this.ownerIsGone()) {
      try {
        unlinkSync(this.file);
      } catch (err) {
        // A folder that cannot be written keeps a dead owner's lock forever: say so, do not wait it out.
        if (["EROFS", "EACCES", "EPERM"].includes(errnoOf(err) ?? "")) throw err;
      }
    }
    return false;
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    try {
      unlinkSync(this.file);
    } catch {}
  }

  /** Whether the file is there (taken by someone, maybe us). */
  taken(): boolean {
    try {
      statSync(this.file);
      return true;
    } catch {
      return false;
    }
  }

  /** Says (and keeps saying, at each call) that this lock is waiting for the file. */
  want(): void {
    const now = Date.now();
    if (now - this.wantWrittenAt < WANT_RENEW_MS) return;
    try {
      writeFileSync(this.wantFile, this.id, { mode: 0o600 });
      this.wantWrittenAt = now;
    } catch {
      // Only a courtesy: without it the holder still hands over at the end of its time slice.
    }
  }

  /** Takes back this lock's waiting notice, unless another waiter has put its own there since. */
  unwant(): void {
    if (this.wantWrittenAt === 0) return;
    this.wantWrittenAt = 0;
    try {
      if (readFileSync(this.wantFile, "utf8") === this.id) unlinkSync(this.wantFile);
    } catch {}
  }

  /** Another process (or another App of this one) is waiting for the file now. */
  othersWaiting(): boolean {
    try {
      if (Date.now() - statSync(this.wantFile).mtimeMs > WANT_FRESH_MS) return false;
      return readFileSync(this.wantFile, "utf8") !== this.id;
    } catch {
      return false;
    }
  }

  private ownerIsGone(): boolean {
    let text: string;
    let ageMs: number;
    try {
      text = readFileSync(this.file, "utf8");
      ageMs = Date.now() - statSync(this.file).mtimeMs;
    } catch {
      return false; // removed meanwhile: try again
    }
    const pid = Number(text);
    // An empty file is a lock being taken right now, unless it has stayed empty for a while.
    if (!Number.isInteger(pid) || pid <= 0) return ageMs > 1000;
    if (pid === process.pid) return false;
    try {
      process.kill(pid, 0);
      return false;
    } catch (err) {
      return errnoOf(err) === "ESRCH";
    }
  }
}
