/**
 * A stat worker: stats the chunks of a vault scan's files that the scanning thread has not
 * claimed yet (stat-files.ts). An entrypoint of its own in the compiled binary (scripts/build.ts).
 */
import { statChunks } from "./stat-chunks.ts";
import type { StatRequest } from "./stat-protocol.ts";

declare const self: Worker;

self.onmessage = (event: MessageEvent<StatRequest>) => {
  const r = event.data;
  const paths = new TextDecoder().decode(new Uint8Array(r.paths, 0, r.pathsLength)).split("\0");
  statChunks(paths, new Float64Array(r.results), new Int32Array(r.chunks));
  self.postMessage("done");
};
