import { IndxError } from "../core/errors.ts";
import { type VaultWriteLock, waitCancelled } from "./lock.ts";

export interface WriterQueueLimits {
  /** Writers waiting at most; one more is refused at once (rate_limited, `write_queue_full`). */
  maxWaiting: number;
  /** A writer that has not begun this long after it queued is refused (rate_limited) — docs/contracts.md, Locks: 10 s. */
  maxWaitMs: number;
  /**
   * A run of writers holds the lock file at most this long before it is given up for a moment,
   * even when no other process said it waits (an older indx does not say so).
   */
  sliceMs: number;
  /** How long the lock file stays free after a hand-over for the process that waits to take it. */
  handOverMs: number;
  /** How often the lock file is tried while another process holds it. */
  pollMs: number;
}

const DEFAULT_LIMITS: WriterQueueLimits = { maxWaiting: 1000, maxWaitMs: 10_000, sliceMs: 2000, handOverMs: 30, pollMs: 5 };

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Waiter {
  /** Runs the writer; what it returned or threw goes to `finish`. */
  start(): Promise<Outcome>;
  /** Settles the caller's promise. */
  finish(outcome: Outcome): void;
  refuse(err: unknown): void;
  /** Stops the waiter's timer and its abort listener: it has begun, or was refused. */
  settle(): void;
}

/**
 * The writers of one vault in this process, one at a time, in the order they asked
 * (docs/decisions.md, "One queue of writers per vault"). The head of the queue takes the
 * cross-process lock file (VaultWriteLock) and the run of writers behind it keeps it, so a busy
 * server neither polls a file between its own writes nor lets a newcomer jump ahead of writers
 * that waited longer. The file is given back when the queue drains, at the next turn once another
 * process says it waits, and after `sliceMs` of holding in any case, so no other process starves.
 * A writer waits at most `maxWaitMs` (then the typed busy error, rate_limited) and leaves the
 * queue at once when its signal aborts; a writer that has begun runs to its end.
 */
export class WriterQueue {
  private readonly waiting: Waiter[] = [];
  private readonly limits: WriterQueueLimits;
  private draining = false;
  /** When the lock file was taken for the current run of writers. */
  private heldSince = 0;
  /** The head is waiting for a lock file another process holds (the busy error says so). */
  private blockedByOther = false;
  /** Settles when a writer joins the queue while the drain idles (idle). */
  private arrival: PromiseWithResolvers<void> | null = null;

  constructor(
    private readonly lock: VaultWriteLock,
    limits: Partial<WriterQueueLimits> = {},
    /** Awaited, with the lock file still held, before the file is given up (the writes' reindex). */
    private readonly beforeRelease: () => Promise<void> = async () => {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /** Writers waiting for their turn now (not the one running). */
  get length(): number {
    return this.waiting.length;
  }

  run<T>(fn: () => Promise<T> | T, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(waitCancelled());
    if (this.waiting.length >= this.limits.maxWaiting)
      return Promise.reject(
        busy(`${this.waiting.length} writes to this vault are waiting already; retry shortly.`, {
          reason: "write_queue_full",
          waiting: this.waiting.length,
        }),
      );
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => this.drop(waiter, this.waitedTooLong()), this.limits.maxWaitMs);
      const onAbort = () => this.drop(waiter, waitCancelled());
      const waiter: Waiter = {
        async start() {
          try {
            return { ok: true, value: await fn() };
          } catch (error) {
            return { ok: false, error };
          }
        },
        finish(outcome) {
          if (outcome.ok) resolve(outcome.value as T);
          else reject(outcome.error);
        },
        refuse: reject,
        settle() {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
      this.arrival?.resolve();
      void this.drain();
    });
  }

  /** A waiter leaves before its turn (timed out, cancelled); the others keep their places. */
  private drop(waiter: Waiter, err: IndxError): void {
    const at = this.waiting.indexOf(waiter);
    if (at < 0) return;
    this.waiting.splice(at, 1);
    if (this.waiting.length === 0) this.lock.unwant();
    waiter.settle();
    waiter.refuse(err);
  }

  private waitedTooLong(): IndxError {
    const seconds = this.limits.maxWaitMs / 1000;
    return this.blockedByOther
      ? busy(`Another indx process is writing to this vault; this write waited ${seconds} s. Retry shortly.`, { reason: "vault_locked" })
      : busy(`This write waited ${seconds} s behind other writes to this vault; retry shortly.`, { reason: "write_queue" });
  }

  /** Runs the waiters in order; one drain at a time. */
  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      for (;;) {
        if (this.waiting.length === 0) {
          if (!this.lock.held) break;
          await this.idle();
          continue;
        }
        if (!(await this.takeLock())) continue;
        const head = this.waiting.shift();
        if (!head) continue;
        head.settle();
        const outcome = await head.start();
        // Given back before the caller hears its answer: a CLI command exits right after it.
        if (this.waiting.length === 0) await this.idle();
        head.finish(outcome);
        if (this.waiting.length === 0) continue;
        if (this.lock.othersWaiting() || performance.now() - this.heldSince > this.limits.sliceMs) await this.handOver();
      }
    } finally {
      this.draining = false;
      if (this.waiting.length === 0) this.lock.release();
    }
  }

  /**
   * Nobody waits: the lock file is given back once the writes of this run are indexed
   * (`beforeRelease`), unless a writer asks first; that writer then goes at once, with the file
   * still held, instead of waiting for the index pass of the writes before it (under 30 mixed
   * clients that pass was most of a write's wait, docs/decisions.md "Writes under load").
   */
  private async idle(): Promise<void> {
    const arrival = Promise.withResolvers<void>();
    this.arrival = arrival;
    let indexed = false;
    try {
      await Promise.race([this.beforeRelease().then(() => (indexed = true)), arrival.promise]);
    } finally {
      this.arrival = null;
    }
    // A writer that came and left again (cancelled) lets the drain idle once more.
    if (indexed && this.waiting.length === 0) this.lock.release();
  }

  /**
   * The lock file for the head of the queue: at once if this run holds it, else polled while
   * another process has it. False when the head could not have it (the folder refuses it: that
   * head gets the error) or nobody waits any more.
   */
  private async takeLock(): Promise<boolean> {
    if (this.lock.held) return true;
    for (;;) {
      if (this.waiting.length === 0) {
        this.lock.unwant();
        this.blockedByOther = false;
        return false;
      }
      let got: boolean;
      try {
        got = this.lock.tryAcquire();
      } catch (err) {
        const head = this.waiting.shift();
        head?.settle();
        head?.refuse(err);
        continue;
      }
      if (got) {
        this.lock.unwant();
        this.blockedByOther = false;
        this.heldSince = performance.now();
        return true;
      }
      this.blockedByOther = true;
      this.lock.want();
      await Bun.sleep(this.limits.pollMs);
    }
  }

  /** Gives the lock file up between two writers and leaves it free long enough for a waiting process to take it. */
  private async handOver(): Promise<void> {
    await this.beforeRelease();
    this.lock.release();
    const until = performance.now() + this.limits.handOverMs;
    while (performance.now() < until && !this.lock.taken()) await Bun.sleep(1);
  }
}

function busy(message: string, details: Record<string, unknown>): IndxError {
  return new IndxError("rate_limited", message, { ...details, retry_after_s: 1 });
}
