/**
 * A stat worker: stats each chunk of a vault scan's files the scanning thread posts, unless that
 * thread claimed it first (stat-files.ts). An entrypoint of its own in the compiled binary
 * (scripts/build.ts).
 */
import { claimAndStat } from "./stat-chunks.ts";
import type { StatChunkRequest } from "./stat-protocol.ts";

declare const self: Worker;

self.onmessage = (event: MessageEvent<StatChunkRequest>) => {
  const r = event.data;
  const paths = new TextDecoder().decode(new Uint8Array(r.paths, 0, r.pathsLength)).split("\0");
  claimAndStat(paths, 0, paths.length, new Float64Array(r.results), new Int32Array(r.state));
};
