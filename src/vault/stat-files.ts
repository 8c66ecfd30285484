import { availableParallelism } from "node:os";
import { claimAndStat, statFiles } from "./stat-chunks.ts";
import { CHUNK, CLAIMED, type StatChunkRequest, UNREADABLE } from "./stat-protocol.ts";

/** The stats of files by their place in the list statted: size (or NOT_A_FILE, UNREADABLE), then mtime. */
export class FileStats {
  /** The results of each chunk of CHUNK files, in order. */
  constructor(private readonly chunks: Float64Array[]) {}

  /** The file's size in bytes, or NOT_A_FILE, or UNREADABLE. */
  // A place past the end of the list was never statted: it reads as unreadable, mtime 0.
  size(i: number): number {
    return this.chunks[Math.floor(i / CHUNK)]?.[2 * (i % CHUNK)] ?? UNREADABLE;
  }

  mtimeMs(i: number): number {
    return this.chunks[Math.floor(i / CHUNK)]?.[2 * (i % CHUNK) + 1] ?? 0;
  }
}

/** Fewer files than this are statted in a few tens of milliseconds on one thread. */
const PARALLEL_MIN = 10_000;
/** How long the scanning thread waits for a chunk the stat worker claimed before it stats it itself. */
const CHUNK_TIMEOUT_MS = 2_000;

/** A chunk of files posted to the stat worker: its results, and which thread claimed it. */
interface PostedChunk {
  results: Float64Array;
  state: Int32Array;
}

/**
 * Stats a scan's files. Stat is a system call (two microseconds each: most of a no-change pass
 * over a large vault), so with two cores a stat worker takes a share of them. It is started once
 * the walk has found PARALLEL_MIN files, and from then on each chunk of CHUNK files goes to it as
 * soon as the walk has found them: it stats while the walk reads the folders that follow. The
 * scanning thread never waits for it: after the walk it claims the chunks the worker has not,
 * from the last one back.
 */
export class StatPool {
  private worker: Worker | null = null;
  private readonly posted: PostedChunk[] = [];

  /** The walk has found these files so far (absolute paths, in order): called after each one. */
  found(paths: string[]): void {
    const count = paths.length;
    if (count === PARALLEL_MIN && availableParallelism() > 1) this.worker = new Worker(new URL("./stat-worker.ts", import.meta.url));
    const worker = this.worker;
    if (worker && count % CHUNK === 0) while (this.posted.length < count / CHUNK) this.post(worker, paths, this.posted.length);
  }

  /** Stats the files; `meanwhile` runs on this thread first, while the worker goes on. */
  stat(paths: string[], meanwhile?: () => void): FileStats {
    meanwhile?.();
    for (let c = this.posted.length - 1; c >= 0; c--) {
      const chunk = this.posted[c];
      if (chunk) claimAndStat(paths, c * CHUNK, (c + 1) * CHUNK, chunk.results, chunk.state);
    }
    const rest: Float64Array[] = [];
    for (let from = this.posted.length * CHUNK; from < paths.length; from += CHUNK) {
      const results = new Float64Array(2 * CHUNK);
      statFiles(paths, from, Math.min(paths.length, from + CHUNK), results);
      rest.push(results);
    }
    for (const [c, { results, state }] of this.posted.entries()) {
      // A chunk the worker claimed and never finished (it cannot, short of a crash) is statted here.
      if (Atomics.load(state, 0) === CLAIMED && Atomics.wait(state, 0, CLAIMED, CHUNK_TIMEOUT_MS) === "timed-out")
        statFiles(paths, c * CHUNK, (c + 1) * CHUNK, results);
    }
    return new FileStats([...this.posted.map((p) => p.results), ...rest]);
  }

  close(): void {
    this.worker?.terminate();
    this.worker = null;
  }

  private post(worker: Worker, paths: string[], c: number): void {
    const results = new SharedArrayBuffer(2 * CHUNK * Float64Array.BYTES_PER_ELEMENT);
    const state = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
    worker.postMessage({ ...encodePaths(paths.slice(c * CHUNK, (c + 1) * CHUNK)), results, state } satisfies StatChunkRequest);
    this.posted.push({ results: new Float64Array(results), state: new Int32Array(state) });
  }
}

function encodePaths(paths: string[]): { paths: SharedArrayBuffer; pathsLength: number } {
  const joined = paths.join("\0");
  // UTF-8 takes at most three bytes per UTF-16 code unit.
  const buffer = new SharedArrayBuffer(joined.length * 3);
  return { paths: buffer, pathsLength: new TextEncoder().encodeInto(joined, new Uint8Array(buffer)).written };
}
