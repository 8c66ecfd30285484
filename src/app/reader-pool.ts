import type { Static, TObject } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import { debugLog } from "../core/log.ts";
import type { IndexReport } from "../index/build/indexer.ts";
import type { OpContext, UpdateOrigin } from "../ops/context.ts";
import type { AnyOperation, Operation, OutputOf } from "../ops/define.ts";
import { type Invoked, invokeOp } from "../ops/invoke.ts";
import type { Vault } from "../vault/vault.ts";
import type { FromReader, ToReader } from "./reader-protocol.ts";

type RunMessage = Extract<ToReader, { type: "run" }>;

/** What the REST dispatcher needs of invokeOp's answer. */
interface PendingRead {
  message: RunMessage;
  /** A read whose worker died is sent once more, to another worker. */
  retried: boolean;
  resolve(answer: { input: Record<string, unknown>; result: OutputOf<AnyOperation> }): void;
  reject(err: IndxError): void;
}

interface Reader {
  worker: Worker;
  ready: boolean;
  /** Settles when the worker is ready, or has died starting. */
  started: PromiseWithResolvers<void>;
  /** The read it runs now: one at a time, so a slow search holds up no read queued behind it. */
  current: PendingRead | null;
}

/**
 * Reader workers (reader-worker.ts) that answer the safe operations of `indx serve`, each from
 * its own read connection, so reads use every core while this thread parses requests, runs the
 * writes and emits the events (docs/decisions.md, "Reads on a pool of threads"). Reads wait in
 * one queue and each goes to the next worker that is free; while no worker is ready they run on
 * this thread. Index updates and vector changes made here are forwarded to every worker, so they
 * drop the caches this thread drops.
 */
export class ReaderPool {
  private readonly readers: Reader[] = [];
  private readonly queue: PendingRead[] = [];
  private nextId = 1;
  private closed = false;
  /** Reads a worker answered, with a result or an error (tests). */
  answered = 0;

  constructor(
    private readonly vault: Vault,
    readonly size: number,
    private readonly script = new URL("./reader-worker.ts", import.meta.url),
    /**
     * How many nice levels below this thread the workers run (Linux; server.read_nice): when the
     * cores are busy, a write's steps (its request, its staging, its index pass) go first and
     * reads take the rest (docs/decisions.md, "Writes under load").
     */
    private readonly nice = 0,
  ) {
    for (let i = 0; i < size; i++) this.spawn();
  }

  /** Reads only: a write, an admin operation, an AI call or anything with side effects stays on this thread. */
  static serves(op: AnyOperation): boolean {
    return op.safe && op.scope !== "vault:admin" && !op.ai;
  }

  /** Workers that take reads now (the indx_read_workers gauge). */
  get readyCount(): number {
    return this.readers.filter((r) => r.ready).length;
  }

  /** Resolves once every worker has started (tests: requests never wait for it). */
  async ready(): Promise<void> {
    await Promise.all(this.readers.map((r) => r.started.promise));
  }

  /**
   * invokeOp, on a worker for the reads it serves: the same scope check, validation and errors,
   * with the caller's scopes. Anything else, or any read while no worker is ready, runs here.
   */
  async invoke<I extends TObject, O extends TObject>(
    op: Operation<I, O>,
    ctx: OpContext,
    raw: unknown,
    opts: { coerce?: boolean } = {},
  ): Promise<Invoked<I, O>> {
    if (!ReaderPool.serves(op) || !this.readers.some((r) => r.ready)) return invokeOp(op, ctx, raw, opts);
    const message: RunMessage = {
      type: "run",
      id: this.nextId++,
      op: op.name,
      input: raw,
      scopes: [...ctx.scopes],
      grant: ctx.grant?.spec ?? null,
      coerce: opts.coerce === true,
    };
    const { input, result } = await new Promise<{ input: Record<string, unknown>; result: OutputOf<AnyOperation> }>((resolve, reject) => {
      this.queue.push({ message, retried: false, resolve, reject });
      this.pump();
    });
    return { input: input as Static<I>, result: result as Static<O>, replayed: false };
  }

  indexUpdated(report: IndexReport, paths: string[] | null, origin: UpdateOrigin): void {
    this.broadcast({ type: "indexUpdated", report, paths, origin });
  }

  vectorsChanged(): void {
    this.broadcast({ type: "vectorsChanged" });
  }

  /** Reads not answered yet fail as cancelled; each worker closes its connections, then ends. */
  close(): void {
    this.closed = true;
    this.failWaiting(shuttingDown());
    for (const reader of this.readers.splice(0)) {
      reader.current?.reject(shuttingDown());
      reader.current = null;
      const { worker } = reader;
      worker.onmessage = (event: MessageEvent<FromReader>) => {
        if (event.data.type === "closed") worker.terminate();
      };
      worker.postMessage({ type: "close" } satisfies ToReader);
    }
  }

  private spawn(): void {
    const worker = new Worker(this.script);
    const reader: Reader = { worker, ready: false, started: Promise.withResolvers(), current: null };
    // The listening socket keeps the process alive, never a worker (a serve that cannot bind must exit).
    worker.unref();
    worker.onmessage = (event: MessageEvent<FromReader>) => this.received(reader, event.data);
    worker.onerror = (event) => {
      debugLog("reader worker failed", { error: event.message });
      worker.terminate();
    };
    worker.addEventListener("close", () => this.ended(reader));
    worker.postMessage({ type: "init", vault: this.vault.snapshot(), nice: this.nice } satisfies ToReader);
    this.readers.push(reader);
  }

  /** Hands queued reads, oldest first, to the workers that are free. */
  private pump(): void {
    for (const reader of this.readers) {
      if (this.queue.length === 0) return;
      if (!reader.ready || reader.current) continue;
      const next = this.queue.shift();
      if (next === undefined) return;
      reader.current = next;
      reader.worker.postMessage(next.message);
    }
  }

  private broadcast(message: ToReader): void {
    for (const r of this.readers) r.worker.postMessage(message);
  }

  private received(reader: Reader, message: FromReader): void {
    if (message.type === "ready") {
      reader.ready = true;
      reader.started.resolve();
    } else if ((message.type === "done" || message.type === "failed") && reader.current?.message.id === message.id) {
      const read = reader.current;
      reader.current = null;
      this.answered++;
      if (message.type === "done") read.resolve({ input: message.input, result: message.result });
      else read.reject(new IndxError(message.error.code, message.error.message, message.error.details));
    }
    this.pump();
  }

  /**
   * A worker is gone (a crash, or terminated). Its read goes once more to the front of the queue
   * (another worker, or its replacement, takes it), else fails as `internal`; no read ever waits
   * on a worker that is gone. A worker that had started is replaced; one that died starting is
   * not, so a broken worker cannot spin, and once none is left the reads run on this thread.
   */
  private ended(reader: Reader): void {
    const at = this.readers.indexOf(reader);
    if (at < 0) return;
    this.readers.splice(at, 1);
    reader.started.resolve();
    debugLog("reader worker ended", { ready: reader.ready, reading: reader.current !== null });
    const read = reader.current;
    reader.current = null;
    if (read?.retried === false) this.queue.unshift({ ...read, retried: true });
    else read?.reject(readerStopped());
    if (reader.ready && !this.closed) this.spawn();
    if (this.readers.length === 0) this.failWaiting(readerStopped());
    this.pump();
  }

  private failWaiting(err: IndxError): void {
    for (const read of this.queue.splice(0)) read.reject(err);
  }
}

function readerStopped(): IndxError {
  return new IndxError("internal", "The thread answering this request stopped. Try again.", { reason: "reader_stopped" });
}

function shuttingDown(): IndxError {
  return new IndxError("cancelled", "The server is shutting down; the request was not answered.", { reason: "shutdown" });
}
