/**
 * A reader worker: a Bun Worker of `indx serve` that answers safe operations from its own read
 * connection, so searches run on every core (docs/decisions.md, "Reads on a pool of threads").
 * Loaded by reader-pool.ts; an entrypoint of its own in the compiled binary (scripts/build.ts).
 */
import { edenGC } from "bun:jsc";
import { IndxError, toIndxError } from "../core/errors.ts";
import { lowerThreadPriority } from "../core/thread-priority.ts";
import { setPageCacheKiB } from "../index/storage/store.ts";
import { invokeOp } from "../ops/invoke.ts";
import { compileGrant } from "../vault/grant.ts";
import { Vault } from "../vault/vault.ts";
import { App } from "./context.ts";
import type { FromReader, ToReader } from "./reader-protocol.ts";
import { OPERATION_BY_NAME } from "./registry.ts";

declare const self: Worker;

/**
 * What a reader holds is bounded (docs/decisions.md, "What a reader thread holds"): its read
 * connection's page cache is this many KiB (the main thread's is 32 MB; pages a reader does not
 * keep come from the operating system's file cache, which every thread shares), and the garbage
 * of each read is collected once its answer is sent (below).
 */
const READER_PAGE_CACHE_KIB = 8_000;

let ctx: App | null = null;

const answer = (message: FromReader) => self.postMessage(message);

self.onmessage = (event: MessageEvent<ToReader>) => {
  const message = event.data;
  switch (message.type) {
    case "init":
      lowerThreadPriority(message.nice);
      setPageCacheKiB(READER_PAGE_CACHE_KIB);
      ctx = new App(Vault.fromSnapshot(message.vault));
      ctx.embeddings.keepVectorsWarm();
      answer({ type: "ready" });
      return;
    case "run":
      void run(message);
      return;
    case "indexUpdated":
      ctx?.indexUpdatedElsewhere(message.report, message.paths, message.origin);
      return;
    case "vectorsChanged":
      ctx?.embeddings.vectorsChangedElsewhere();
      return;
    case "close":
      ctx?.close();
      answer({ type: "closed" });
  }
};

async function run(message: Extract<ToReader, { type: "run" }>): Promise<void> {
  const { id } = message;
  try {
    const op = OPERATION_BY_NAME.get(message.op);
    if (!ctx || !op?.safe) throw new IndxError("internal", "A reader worker was asked for something it does not answer.");
    const { input, result } = await invokeOp(op, ctx.forCall({ scopes: new Set(message.scopes), grant: compileGrant(message.grant) }), message.input, {
      coerce: message.coerce,
    });
    answer({ type: "done", id, input, result });
  } catch (err) {
    answer({ type: "failed", id, error: toIndxError(err).toJSON() });
  }
  // A read leaves young garbage (a search's doclists and rows): collected now, after the answer
  // went out, it never piles up. Left to the collector's own pace, each reader's heap grew to
  // 50–80 MB before it ran (100,000 notes, 200 searches: a reader's RSS 160 → 111 MiB).
  edenGC();
}
