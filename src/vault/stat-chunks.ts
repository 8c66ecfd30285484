import { statSync } from "node:fs";
import { CLAIMED, DONE, NOT_A_FILE, UNCLAIMED, UNREADABLE } from "./stat-protocol.ts";

/**
 * Stats a chunk of files if this thread claims it first (the scanning thread and the stat worker
 * both try), writing each file's size and mtime into `results`. True when this thread did it.
 */
export function claimAndStat(paths: string[], from: number, to: number, results: Float64Array, state: Int32Array): boolean {
  if (Atomics.compareExchange(state, 0, UNCLAIMED, CLAIMED) !== UNCLAIMED) return false;
  statFiles(paths, from, to, results);
  Atomics.store(state, 0, DONE);
  Atomics.notify(state, 0);
  return true;
}

/** Stats paths[from, to): the file at `from + k` in results[2k] (size) and results[2k + 1] (mtime). */
export function statFiles(paths: string[], from: number, to: number, results: Float64Array): void {
  for (let i = from; i < to; i++) {
    const at = 2 * (i - from);
    const path = paths[i];
    if (path === undefined) {
      results[at] = UNREADABLE;
      continue;
    }
    try {
      const st = statSync(path);
      results[at] = st.isFile() ? st.size : NOT_A_FILE;
      results[at + 1] = Math.floor(st.mtimeMs);
    } catch {
      results[at] = UNREADABLE;
    }
  }
}
