import { availableParallelism } from "node:os";
import { statChunk, statChunks } from "./stat-chunks.ts";
import { CHUNK, CLAIMED, type StatRequest } from "./stat-protocol.ts";

/** The stats of files by their place in the list statted: size (or NOT_A_FILE, UNREADABLE), then mtime. */
export class FileStats {
  constructor(private readonly results: Float64Array) {}

  /** The file's size in bytes, or NOT_A_FILE, or UNREADABLE. */
  size(i: number): number {
    return this.results[2 * i]!;
  }

  mtimeMs(i: number): number {
    return this.results[2 * i + 1]!;
  }
}

/** Fewer files than this are statted in a few tens of milliseconds on one thread. */
const PARALLEL_MIN = 10_000;
/** How long the scanning thread waits for a chunk the stat worker claimed before it stats it itself. */
const CHUNK_TIMEOUT_MS = 2_000;

/**
 * Stats a scan's files. Stat is a system call (two microseconds each: most of a no-change pass
 * over a large vault), so with two cores a stat worker takes a share of them. It is started once
 * the walk has found PARALLEL_MIN files, so it loads while the walk goes on; the scanning thread
 * never waits for it: it stats every chunk the worker has not claimed.
 */
export class StatPool {
  private worker: Worker | null = null;

  /** The walk has found `count` files so far. */
  found(count: number): void {
    if (count === PARALLEL_MIN && availableParallelism() > 1) this.worker = new Worker(new URL("./stat-worker.ts", import.meta.url));
  }

  /** Stats the files; `meanwhile` runs on this thread once the worker has them. */
  stat(paths: string[], meanwhile?: () => void): FileStats {
    const shared = {
      results: new SharedArrayBuffer(2 * paths.length * Float64Array.BYTES_PER_ELEMENT),
      chunks: new SharedArrayBuffer(Math.ceil(paths.length / CHUNK) * Int32Array.BYTES_PER_ELEMENT),
    };
    const results = new Float64Array(shared.results);
    const chunks = new Int32Array(shared.chunks);
    this.worker?.postMessage({ ...encodePaths(paths), ...shared } satisfies StatRequest);
    meanwhile?.();
    statChunks(paths, results, chunks);
    for (let c = 0; c < chunks.length; c++) {
      // A chunk the worker claimed and never finished (it cannot, short of a crash) is statted here.
      if (Atomics.load(chunks, c) === CLAIMED && Atomics.wait(chunks, c, CLAIMED, CHUNK_TIMEOUT_MS) === "timed-out") statChunk(paths, results, c);
    }
    return new FileStats(results);
  }

  close(): void {
    this.worker?.terminate();
    this.worker = null;
  }
}

function encodePaths(paths: string[]): { paths: SharedArrayBuffer; pathsLength: number } {
  const joined = paths.join("\0");
  // UTF-8 takes at most three bytes per UTF-16 code unit.
  const buffer = new SharedArrayBuffer(joined.length * 3);
  return { paths: buffer, pathsLength: new TextEncoder().encodeInto(joined, new Uint8Array(buffer)).written };
}
