import { IndxError } from "../../core/errors.ts";
import type { ProgressFn } from "../../core/progress.ts";
import type { Vault } from "../../vault/vault.ts";
import type { IndexConnection } from "../storage/connection.ts";
import { type IndexPassOptions, type IndexReport, runIndex, updateIndex } from "./indexer.ts";

/**
 * One index update: some vault paths (a write, the watcher), an incremental pass over the whole
 * vault on the existing index, or a build (creating the index when it is missing or incompatible,
 * replacing it when `rebuild`).
 */
export type IndexJob = { paths: string[] } | { full: true } | { build: true; rebuild?: boolean };

export interface IndexJobOptions {
  onProgress?: ProgressFn;
  /** Aborting stops the job: before it starts, or at the next batch (`cancelled`). */
  signal?: AbortSignal;
}

/** Runs index jobs one at a time, in the order they were asked for. */
export interface IndexRunner {
  run(job: IndexJob, opts: IndexJobOptions): Promise<IndexReport>;
  close(): void;
}

/** The synchronous work of one job, on the thread that calls it. */
export function runIndexJob(vault: Vault, connection: IndexConnection, job: IndexJob, opts: IndexPassOptions): IndexReport {
  if ("build" in job) {
    // A build opens a connection of its own, and may replace the file the open one holds.
    connection.release();
    return runIndex(vault, { ...opts, rebuild: job.rebuild });
  }
  return updateIndex(vault, connection.open(), { ...opts, only: "paths" in job ? job.paths : undefined });
}

export function cancelledError(): IndxError {
  return new IndxError("cancelled", "The request was cancelled before the index pass ran.", { reason: "cancelled" });
}

/**
 * Runs each job at once on the calling thread, through the context's own connection: the CLI and
 * tests, where nothing else waits for an answer meanwhile.
 */
export class InlineIndexRunner implements IndexRunner {
  constructor(
    private readonly vault: Vault,
    private readonly connection: IndexConnection,
  ) {}

  async run(job: IndexJob, opts: IndexJobOptions): Promise<IndexReport> {
    const { signal } = opts;
    if (signal?.aborted) throw cancelledError();
    return runIndexJob(this.vault, this.connection, job, { onProgress: opts.onProgress, stopRequested: () => signal?.aborted === true });
  }

  close(): void {}
}
