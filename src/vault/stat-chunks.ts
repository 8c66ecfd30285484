import { statSync } from "node:fs";
import { CHUNK, CLAIMED, DONE, NOT_A_FILE, UNCLAIMED, UNREADABLE } from "./stat-protocol.ts";

/**
 * Stats every chunk of files this thread can claim, writing each file's size and mtime into
 * `results`. Two threads run this on the same arrays, each claiming chunks the other has not.
 */
export function statChunks(paths: string[], results: Float64Array, chunks: Int32Array): void {
  for (let c = 0; c < chunks.length; c++) {
    if (Atomics.compareExchange(chunks, c, UNCLAIMED, CLAIMED) !== UNCLAIMED) continue;
    statChunk(paths, results, c);
    Atomics.store(chunks, c, DONE);
    Atomics.notify(chunks, c);
  }
}

export function statChunk(paths: string[], results: Float64Array, c: number): void {
  const end = Math.min(paths.length, (c + 1) * CHUNK);
  for (let i = c * CHUNK; i < end; i++) {
    try {
      const st = statSync(paths[i]!);
      results[2 * i] = st.isFile() ? st.size : NOT_A_FILE;
      results[2 * i + 1] = Math.floor(st.mtimeMs);
    } catch {
      results[2 * i] = UNREADABLE;
    }
  }
}
