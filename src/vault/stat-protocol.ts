/** What the scanning thread shares with a stat worker (stat-files.ts, stat-worker.ts). */
export interface StatRequest {
  /** The absolute paths, UTF-8, separated by NUL (which no path holds). */
  paths: SharedArrayBuffer;
  pathsLength: number;
  /** Per file: size and mtime (ms), or NOT_A_FILE / UNREADABLE as the size. */
  results: SharedArrayBuffer;
  /** Per chunk of CHUNK files: UNCLAIMED, CLAIMED or DONE. */
  chunks: SharedArrayBuffer;
}

export const CHUNK = 1000;
export const UNCLAIMED = 0;
export const CLAIMED = 1;
export const DONE = 2;

export const NOT_A_FILE = -1;
export const UNREADABLE = -2;
