import type { IndxError } from "../../core/errors.ts";
import type { VaultSnapshot } from "../../vault/vault.ts";
import type { IndexReport } from "./indexer.ts";
import type { IndexJob } from "./jobs.ts";

/** What the main thread tells the index worker. */
export type ToIndexWorker =
  /** First message: the vault, and the cell holding the id of the job to stop (0: none). */
  | { type: "init"; vault: VaultSnapshot; cancel: Int32Array }
  | { type: "job"; id: number; job: IndexJob }
  /** Close the connection (after the job running now) and say so; the main thread then terminates the worker. */
  | { type: "close" };

/** What the index worker answers: about one job, or that it has closed its connection. */
export type FromIndexWorker =
  | { type: "closed" }
  | { type: "progress"; id: number; done: number; total: number }
  | { type: "done"; id: number; report: IndexReport }
  | { type: "failed"; id: number; error: ReturnType<IndxError["toJSON"]> };
