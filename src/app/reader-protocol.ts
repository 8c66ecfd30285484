import type { IndxError } from "../core/errors.ts";
import type { IndexReport } from "../index/build/indexer.ts";
import type { UpdateOrigin } from "../ops/context.ts";
import type { Scope } from "../ops/define.ts";
import type { GrantSpec } from "../ops/grant.ts";
import type { VaultSnapshot } from "../vault/vault.ts";

/** What the main thread tells a reader worker. */
export type ToReader =
  /** First message: the vault to read. The worker answers `ready`. */
  | { type: "init"; vault: VaultSnapshot; nice: number }
  /** Run a safe operation with the caller's scopes, folder grant and raw input (validated in the worker). */
  | { type: "run"; id: number; op: string; input: unknown; scopes: Scope[]; grant: GrantSpec | null; coerce: boolean }
  /** The main thread updated the index: drop what is cached about it. */
  | { type: "indexUpdated"; report: IndexReport; paths: string[] | null; origin: UpdateOrigin }
  /** The main thread's embedding run added or removed vectors. */
  | { type: "vectorsChanged" }
  /** Close the connections and say so; the main thread then terminates the worker. */
  | { type: "close" };

/** What a reader worker answers. */
export type FromReader =
  | { type: "ready" }
  | { type: "closed" }
  /** `input`: what the read ran with (validated, defaults applied, note names resolved). */
  | { type: "done"; id: number; input: Record<string, unknown>; result: Record<string, unknown> }
  | { type: "failed"; id: number; error: ReturnType<IndxError["toJSON"]> };
