/**
 * What the scanning thread shares with a stat worker (stat-files.ts, stat-worker.ts): one message
 * per chunk of CHUNK files, posted as soon as the walk has found them.
 */
export interface StatChunkRequest {
  /** The chunk's absolute paths, UTF-8, separated by NUL (which no path holds). */
  paths: SharedArrayBuffer;
  pathsLength: number;
  /** Per file: size and mtime (ms), or NOT_A_FILE / UNREADABLE as the size. */
  results: SharedArrayBuffer;
  /** One cell: UNCLAIMED, CLAIMED or DONE. The thread that claims the chunk stats it. */
  state: SharedArrayBuffer;
}

export const CHUNK = 1000;
export const UNCLAIMED = 0;
export const CLAIMED = 1;
export const DONE = 2;

export const NOT_A_FILE = -1;
export const UNREADABLE = -2;
