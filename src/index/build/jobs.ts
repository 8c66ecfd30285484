import { IndxError } from "../../core/errors.ts";
import type { ProgressFn } from "../../core/progress.ts";
import type { Vault } from "../../vault/vault.ts";
import type { IndexConnection } from "../storage/connection.ts";
import type { IndexReport } from "./indexer.ts";

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
    // The indexer (parser, YAML, rows) loads on the first job: a CLI read whose check finds
    // nothing changed never needs it (docs/decisions.md, "A CLI read that is current and fast").
    const { runIndexJob } = await import("./indexer.ts");
    return runIndexJob(this.vault, this.connection, job, { onProgress: opts.onProgress, stopRequested: () => signal?.aborted === true });
  }

  close(): void {}
}
