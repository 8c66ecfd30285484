import { IndxError } from "../../core/errors.ts";
import { debugLog } from "../../core/log.ts";
import type { Vault } from "../../vault/vault.ts";
import type { IndexReport } from "./indexer.ts";
import { cancelledError, type IndexJob, type IndexJobOptions, type IndexRunner } from "./jobs.ts";
import type { FromIndexWorker, ToIndexWorker } from "./worker-protocol.ts";

interface QueuedJob {
  id: number;
  job: IndexJob;
  opts: IndexJobOptions;
  resolve(report: IndexReport): void;
  reject(err: IndxError): void;
  /** Stops listening to the caller's signal once the job has settled. */
  forget(): void;
}

/**
 * Runs index jobs in the index worker (index-worker.ts), one at a time in the order asked, while
 * this thread goes on answering requests from its own read connection (WAL). The worker starts on
 * the first job and again after a crash. Cancelling the running job sets a shared cell the worker
 * polls between batches; a queued job is simply dropped.
 */
export class WorkerIndexRunner implements IndexRunner {
  private worker: Worker | null = null;
  private readonly cancel = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  private readonly queue: QueuedJob[] = [];
  private running: QueuedJob | null = null;
  private nextId = 1;
  private closed = false;

  constructor(private readonly vault: Vault) {}

  run(job: IndexJob, opts: IndexJobOptions): Promise<IndexReport> {
    const { signal } = opts;
    if (this.closed) return Promise.reject(shuttingDown());
    if (signal?.aborted) return Promise.reject(cancelledError());
    return new Promise<IndexReport>((resolve, reject) => {
      const onAbort = () => this.abort(queued);
      const queued: QueuedJob = { id: this.nextId++, job, opts, resolve, reject, forget: () => signal?.removeEventListener("abort", onAbort) };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(queued);
      this.startNext();
    });
  }

  /**
   * Stops the worker: the running job is cancelled (it rolls back at its next batch), queued ones
   * fail at once. The worker closes its connection before it is terminated, so no lock of it
   * outlives it; it does not keep the process alive meanwhile.
   */
  close(): void {
    this.closed = true;
    if (this.running) Atomics.store(this.cancel, 0, this.running.id);
    for (const job of [...(this.running ? [this.running] : []), ...this.queue.splice(0)]) settle(job, () => job.reject(shuttingDown()));
    this.running = null;
    const worker = this.worker;
    this.worker = null;
    if (!worker) return;
    worker.unref();
    worker.onmessage = (event: MessageEvent<FromIndexWorker>) => {
      if (event.data.type === "closed") worker.terminate();
    };
    worker.postMessage({ type: "close" } satisfies ToIndexWorker);
  }

  private startNext(): void {
    if (this.running) return;
    const next = this.queue.shift();
    // An idle worker never keeps the process alive (a serve that failed to start must exit).
    if (!next) return this.worker?.unref();
    this.running = next;
    Atomics.store(this.cancel, 0, 0);
    this.post({ type: "job", id: next.id, job: next.job });
  }

  private abort(job: QueuedJob): void {
    if (this.running === job) {
      Atomics.store(this.cancel, 0, job.id);
      return;
    }
    const at = this.queue.indexOf(job);
    if (at < 0) return;
    this.queue.splice(at, 1);
    settle(job, () => job.reject(cancelledError()));
  }

  private post(message: ToIndexWorker): void {
    if (!this.worker) {
      const worker = new Worker(new URL("./index-worker.ts", import.meta.url));
      worker.onmessage = (event: MessageEvent<FromIndexWorker>) => this.received(event.data);
      worker.onerror = (event) => this.crashed(event);
      worker.postMessage({ type: "init", vault: this.vault.snapshot(), cancel: this.cancel } satisfies ToIndexWorker);
      this.worker = worker;
    }
    this.worker.ref();
    this.worker.postMessage(message);
  }

  private received(message: FromIndexWorker): void {
    const job = this.running;
    if (message.type === "closed" || !job || message.id !== job.id) return;
    if (message.type === "progress") {
      job.opts.onProgress?.(message.done, message.total);
      return;
    }
    this.running = null;
    if (message.type === "done") settle(job, () => job.resolve(message.report));
    else settle(job, () => job.reject(new IndxError(message.error.code, message.error.message, message.error.details)));
    this.startNext();
  }

  /** An uncaught failure inside the worker: its job fails, and the next job gets a new worker. */
  private crashed(event: ErrorEvent): void {
    debugLog("index worker crashed", { error: event.message });
    this.worker?.terminate();
    this.worker = null;
    const job = this.running;
    this.running = null;
    if (job) settle(job, () => job.reject(new IndxError("internal", "An internal error occurred. Re-run with INDX_DEBUG=1 for details.")));
    this.startNext();
  }
}

function shuttingDown(): IndxError {
  return new IndxError("cancelled", "The server is shutting down; the index pass did not run to its end.", { reason: "shutdown" });
}

function settle(job: QueuedJob, outcome: () => void): void {
  job.forget();
  outcome();
}
