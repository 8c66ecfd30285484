/**
 * The index worker: a Bun Worker that owns the index writes of `serve` and `indx mcp`, so request
 * handling never waits on SQLite work (docs/decisions.md, "Index passes off the request thread").
 * It has its own connection and runs the jobs the main thread sends, one at a time. Loaded by
 * worker-runner.ts; an entrypoint of its own in the compiled binary (scripts/build.ts).
 */
import { fullGC } from "bun:jsc";
import { IndxError, toIndxError } from "../../core/errors.ts";
import { debugLog } from "../../core/log.ts";
import { Vault } from "../../vault/vault.ts";
import { IndexConnection } from "../storage/connection.ts";
import { runIndexJob } from "./indexer.ts";
import type { FromIndexWorker, ToIndexWorker } from "./worker-protocol.ts";

declare const self: Worker;

let state: { vault: Vault; connection: IndexConnection; cancel: Int32Array } | null = null;

const answer = (message: FromIndexWorker) => self.postMessage(message);

self.onmessage = (event: MessageEvent<ToIndexWorker>) => {
  const message = event.data;
  if (message.type === "init") {
    const vault = Vault.fromSnapshot(message.vault);
    state = { vault, connection: new IndexConnection(vault), cancel: message.cancel };
    return;
  }
  if (message.type === "close") {
    state?.connection.release();
    answer({ type: "closed" });
    return;
  }
  const { id, job } = message;
  try {
    if (!state) throw new IndxError("internal", "The index worker got a job before its vault.");
    const { cancel } = state;
    const report = runIndexJob(state.vault, state.connection, job, {
      onProgress: (done, total) => answer({ type: "progress", id, done, total }),
      stopRequested: () => Atomics.load(cancel, 0) === id,
    });
    answer({ type: "done", id, report });
  } catch (err) {
    if (!(err instanceof IndxError)) debugLog("index job failed", { error: err });
    answer({ type: "failed", id, error: toIndxError(err).toJSON() });
  }
  collectAfterJob();
};

/** How long the worker must have had no job before it runs its full collection. */
const IDLE_GC_MS = 1000;
/** While jobs keep coming, a full collection at most this often. */
const BUSY_GC_EVERY_MS = 2000;
let idleGc: ReturnType<typeof setTimeout> | null = null;
let lastGc = performance.now();

/**
 * A pass over the whole vault leaves its scan behind (100,000 files: tens of MB of paths and
 * stats), and the worker then idles until the next change: collected once it idles, the memory
 * goes back instead of staying with an idle thread (docs/decisions.md, "What a reader thread
 * holds"). Not after every job: under a stream of writes each batch's pass is a few ms and a full
 * collection 10–20 ms, which then ran after every batch, held up the next one and took about 45 %
 * of a core; while jobs keep coming it runs every 2 s, which bounds what they leave behind
 * (docs/decisions.md, "Writes under load").
 */
function collectAfterJob(): void {
  if (idleGc) clearTimeout(idleGc);
  idleGc = null;
  if (performance.now() - lastGc >= BUSY_GC_EVERY_MS) return collectNow();
  idleGc = setTimeout(collectNow, IDLE_GC_MS);
  idleGc.unref();
}

function collectNow(): void {
  idleGc = null;
  fullGC();
  lastGc = performance.now();
}
