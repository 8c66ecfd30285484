/**
 * A reader worker: a Bun Worker of `indx serve` that answers safe operations from its own read
 * connection, so searches run on every core (docs/decisions.md, "Reads on a pool of threads").
 * Loaded by reader-pool.ts; an entrypoint of its own in the compiled binary (scripts/build.ts).
 */
import { IndxError, toIndxError } from "../core/errors.ts";
import { invokeOp } from "../ops/invoke.ts";
import { Vault } from "../vault/vault.ts";
import { App } from "./context.ts";
import type { FromReader, ToReader } from "./reader-protocol.ts";
import { OPERATION_BY_NAME } from "./registry.ts";

declare const self: Worker;

let ctx: App | null = null;

const answer = (message: FromReader) => self.postMessage(message);

self.onmessage = (event: MessageEvent<ToReader>) => {
  const message = event.data;
  switch (message.type) {
    case "init":
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
    const { result } = await invokeOp(op, ctx.forCall({ scopes: new Set(message.scopes) }), message.input, { coerce: message.coerce });
    answer({ type: "done", id, result });
  } catch (err) {
    answer({ type: "failed", id, error: toIndxError(err).toJSON() });
  }
}
