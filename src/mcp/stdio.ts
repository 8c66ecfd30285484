import type { App } from "../app/context.ts";
import { INDEX_NEEDS_BUILD, IndxError } from "../core/errors.ts";
import { logEvent } from "../core/log.ts";
import { VaultWatcher } from "../index/build/watcher.ts";
import type { Scope } from "../ops/define.ts";
import type { Grant } from "../ops/grant.ts";
import { DualStdioTransport } from "./dual-stdio.ts";
import { McpHub } from "./hub.ts";
import { createSession } from "./session.ts";

export interface StdioOptions {
  scopes: ReadonlySet<Scope>;
  /** `indx mcp --token`: that token's folder grant and id (docs/permissions.md). */
  grant?: Grant | null;
  tokenId?: string;
  /** Watch the vault and keep the index current (default true). */
  watch?: boolean;
  /** How long to wait for notifications/initialized before indexing anyway. */
  initializeGraceMs?: number;
}

/** Updates the index (incremental), or builds it when missing or incompatible: what `serve` does. */
async function bringIndexUpToDate(ctx: App): Promise<void> {
  const started = performance.now();
  try {
    ctx.index;
    const r = await ctx.updateIndex({ full: true });
    logEvent("mcp.index_ready", { added: r.added, updated: r.updated, deleted: r.deleted, ms: Math.round(performance.now() - started) });
  } catch (err) {
    if (!(err instanceof IndxError) || !INDEX_NEEDS_BUILD.has(err.code)) throw err;
    const r = await ctx.updateIndex({ build: true, rebuild: err.code === "index_corrupt" });
    logEvent("mcp.index_built", { reason: err.code, files: r.added, ms: Math.round(performance.now() - started) });
  }
}

/**
 * `indx mcp` over stdio. stdout carries only the protocol (logs go to stderr). The transport is
 * connected first; the index is brought up to date right after the handshake, in the index
 * worker. Requests that arrive meanwhile wait for it: tools, resources and prompts answer as soon
 * as the index is ready.
 * Returns when the client closes stdin or the process is signalled.
 */
export async function serveStdio(ctx: App, opts: StdioOptions): Promise<void> {
  const hub = new McpHub(ctx);
  let markReady!: () => void;
  hub.ready = new Promise<void>((resolve) => (markReady = resolve));
  const session = await createSession(hub, { scopes: opts.scopes, grant: opts.grant ?? null, ...(opts.tokenId ? { tokenId: opts.tokenId } : {}) });
  let watcher: VaultWatcher | null = null;
  let stopEmbedding = () => {};

  let prepared = false;
  const prepare = async () => {
    if (prepared) return;
    prepared = true;
    try {
      // Finishing a crashed multi-file write is a few renames: it runs before the index catches up.
      await ctx.writer.recover().catch(() => {});
      await bringIndexUpToDate(ctx);
    } catch (err) {
      // The operations report the problem (index_missing, …) to the agent on each call.
      logEvent("mcp.index_failed", { code: err instanceof IndxError ? err.code : "internal" });
    } finally {
      markReady();
    }
    if (opts.watch !== false) {
      watcher = new VaultWatcher(ctx, ctx.vault.config.int("index.debounce_ms"));
      watcher.start();
    }
    // Embeddings of new and changed chunks are made in the background, never on a tool call's path.
    const stopBackground = ctx.embeddings.startBackground(ctx);
    // New vectors change what search answers: forget replayed results.
    const unlisten = ctx.embeddings.onVectorsChanged(() => hub.invalidate());
    // Writes by other indx processes (a CLI next to this server) reach the subscriptions too.
    const stopFollowing = ctx.events.followOthers();
    stopEmbedding = () => {
      stopBackground();
      unlisten();
      stopFollowing();
    };
  };
  // Index passes run in a worker, so requests are answered during them (docs/decisions.md).
  ctx.useIndexWorker();
  session.server.oninitialized = () => setTimeout(prepare, 0);
  const grace = setTimeout(prepare, opts.initializeGraceMs ?? 2000);

  const closed = new Promise<void>((resolve) => {
    const onclose = session.server.onclose;
    session.server.onclose = () => {
      onclose?.();
      resolve();
    };
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });

  // 2026-07-28 requests need no initialize: the first one starts the index work as an initialize would.
  await session.server.connect(
    new DualStdioTransport(hub, opts.scopes, { grant: opts.grant ?? null, ...(opts.tokenId ? { tokenId: opts.tokenId } : {}) }, () => setTimeout(prepare, 0)),
  );
  logEvent("mcp.stdio_started", { scopes: [...opts.scopes] });
  await closed;

  clearTimeout(grace);
  (watcher as VaultWatcher | null)?.stop();
  stopEmbedding();
  await session.close().catch(() => {});
  hub.close();
  ctx.close();
}
