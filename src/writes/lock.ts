import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { IndxError } from "../core/errors.ts";

/**
 * Per-path locks inside one process. Writes to different notes proceed independently; writes
 * to the same note queue in arrival order. Paths are taken in sorted order so two multi-file
 * writes (a move and a tag rename) can never deadlock.
 */
export class PathLocks {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(paths: readonly string[], fn: () => Promise<T> | T): Promise<T> {
    const keys = [...new Set(paths.map((p) => p.toLowerCase()))].sort();
    const releases: (() => void)[] = [];
    for (const key of keys) releases.push(await this.acquire(key));
    try {
      return await fn();
    } finally {
      for (const release of releases.reverse()) release();
    }
  }

  private async acquire(key: string): Promise<() => void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    return () => {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }
}

/**
 * One writer at a time across processes (a CLI command next to a running server): an exclusive
 * lock file in the data directory holding the owner's pid. A lock whose owner died (SIGKILL
 * leaves it behind) is taken over; a live owner is waited for, up to `timeoutMs`.
 */
export class VaultWriteLock {
  private readonly file: string;

  constructor(
    dataDir: string,
    private readonly timeoutMs = 10_000,
  ) {
    this.file = join(dataDir, "write.lock");
  }

  async run<T>(fn: () => Promise<T> | T): Promise<T> {
    const deadline = Date.now() + this.timeoutMs;
    while (!this.tryAcquire()) {
      if (Date.now() > deadline)
        throw new IndxError("rate_limited", "Another indx process is writing to this vault; retry shortly.", { reason: "vault_locked" });
      await Bun.sleep(10);
    }
    try {
      return await fn();
    } finally {
      try {
        unlinkSync(this.file);
      } catch {}
    }
  }

  private tryAcquire(): boolean {
    try {
      const fd = openSync(this.file, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
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
        if (["EROFS", "EACCES", "EPERM"].includes((err as NodeJS.ErrnoException).code ?? "")) throw err;
      }
    }
    return false;
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
      return (err as NodeJS.ErrnoException).code === "ESRCH";
    }
  }
}
