import { availableParallelism } from "node:os";
import { basename } from "node:path";
import type { App } from "../app/context.ts";
import { ReaderPool } from "../app/reader-pool.ts";
import { newToken, TokenStore } from "../auth/tokens.ts";
import { writeConfigValue } from "../config/load.ts";
import { errnoOf } from "../core/errno.ts";
import { INDEX_NEEDS_BUILD, IndxError, toIndxError } from "../core/errors.ts";
import { debugLog, logEvent } from "../core/log.ts";
import type { ProgressFn } from "../core/progress.ts";
import { VaultWatcher } from "../index/build/watcher.ts";
import { McpHttpHandler, type McpHttpOptions } from "../mcp/http.ts";
import { DEFAULT_FETCH_POLICY } from "../oauth/client-metadata.ts";
import { baseUrlOf } from "../oauth/metadata.ts";
import { OAuthServer } from "../oauth/server.ts";
import { OAuthStore } from "../oauth/store.ts";
import { storageError } from "../vault/vault.ts";
import { AuthFailureThrottle } from "./auth-throttle.ts";
import { isLoopback } from "./guard.ts";
import { createApp, errorResponse } from "./server.ts";

export interface ServeOptions {
  host: string;
  port: number;
  watch?: boolean;
  onIndexProgress?: ProgressFn;
  /** Where human notices go (stderr by default): the admin token hint, the URL, warnings. */
  notice?: (line: string) => void;
  /** Session cap and idle timeout of MCP at /mcp. */
  mcp?: McpHttpOptions;
}

export interface RunningServer {
  url: string;
  port: number;
  watcher: VaultWatcher | null;
  mcp: McpHttpHandler;
  /** The reader workers, unless server.read_workers is 0. */
  readers: ReaderPool | null;
  stop(): Promise<void>;
}

/**
 * `indx serve`: brings the index up to date (building it on first start), makes sure an admin
 * token exists, starts the watcher and listens. Auth is on unless explicitly turned off on loopback.
 */
export async function startServer(ctx: App, opts: ServeOptions): Promise<RunningServer> {
  try {
    return await start(ctx, opts);
  } catch (err) {
    // A full or read-only data folder stops the start with its own error, not "internal".
    throw storageError(err, ctx.vault.dataDir) ?? err;
  }
}

async function start(ctx: App, opts: ServeOptions): Promise<RunningServer> {
  const notice = opts.notice ?? ((l: string) => process.stderr.write(`${l}\n`));
  const cfg = ctx.vault.config;
  const auth = cfg.get<boolean>("server.auth") !== false;
  if (!auth && !isLoopback(opts.host)) throw new IndxError("validation_failed", "Authentication can only be turned off when binding to a loopback address.");
  if (!isLoopback(opts.host)) notice(`warning: binding to ${opts.host}: indx is reachable from other machines (bearer tokens required).`);

  ctx.vault.ensureDataDir();
  let adminKey = cfg.str("server.api_key");
  if (auth && !adminKey) {
    adminKey = newToken();
    writeConfigValue(cfg.path, "server.api_key", adminKey);
    cfg.noteWritten("server.api_key", adminKey);
    notice("Created an admin token in your indx config. Print it with: indx config reveal-api-key");
  }

  // Requests are answered on this thread; index passes run in a worker (docs/decisions.md).
  ctx.useIndexWorker();
  await ctx.writer.recover();
  try {
    ctx.index;
    await ctx.updateIndex({ full: true });
  } catch (err) {
    if (!(err instanceof IndxError) || !INDEX_NEEDS_BUILD.has(err.code)) throw err;
    notice(
      err.code === "index_missing"
        ? "Building the index (first start)…"
        : `Rebuilding the index (it was ${err.code === "index_corrupt" ? "damaged; the damaged file is set aside" : "incompatible"})…`,
    );
    const r = await ctx.updateIndex({ build: true, rebuild: err.code === "index_corrupt" }, { onProgress: opts.onIndexProgress });
    notice(`Indexed ${r.added} files in ${r.durationMs} ms${r.warnings.length ? `, ${r.warnings.length} warnings (see indx vault status)` : ""}.`);
  }

  const readers = startReaders(ctx);
  const tokens = new TokenStore(ctx.vault.dataDir);
  const key = adminKey;
  const mcp = new McpHttpHandler(ctx, { ...opts.mcp, readers: readers?.pool });
  const oauth = auth && cfg.get<boolean>("server.oauth") !== false ? oauthServer(ctx, () => key) : null;
  const app = createApp(ctx, {
    host: opts.host,
    allowedHosts: cfg.list("server.allowed_hosts"),
    corsOrigins: cfg.list("server.cors_origins"),
    auth,
    adminKey: () => key,
    tokens,
    oauth,
    accessLog: process.env.INDX_ACCESS_LOG === "1",
    mcp: (request, scopes, tokenId) => mcp.handle(request, scopes, tokenId),
    readers: readers?.pool,
    limits: {
      ratePerSecond: cfg.int("server.rate_limit_per_second"),
      rateBurst: cfg.int("server.rate_limit_burst"),
      authFailureLimit: cfg.int("server.auth_failure_limit"),
      authFailureWindowMs: cfg.int("server.auth_failure_window_seconds") * 1000,
    },
  });
  try {
    listen(app, opts.host, opts.port);
  } catch (err) {
    readers?.stop();
    await mcp.close();
    throw err;
  }
  const port = app.server?.port ?? opts.port;
  const shownHost = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  const url = `http://${shownHost}:${port}`;

  const watcher = opts.watch === false ? null : new VaultWatcher(ctx, cfg.int("index.debounce_ms"));
  watcher?.start();
  // Writes by other indx processes (a CLI next to this server) reach /v1/events and MCP subscriptions.
  const stopFollowing = ctx.events.followOthers();
  // Embeds what is pending now and after every index update, off the request path.
  const stopBackground = ctx.embeddings.startBackground(ctx);
  // New vectors change what search answers: forget MCP replays.
  const unlisten = ctx.embeddings.onVectorsChanged(() => mcp.hub.invalidate());
  const stopEmbedding = () => {
    stopBackground();
    unlisten();
  };
  logEvent("server.started", { port, auth });
  notice(`indx is serving ${basename(ctx.vault.root)} at ${url}  (API docs: ${url}/docs)`);
  return {
    url,
    port,
    watcher,
    mcp,
    readers: readers?.pool ?? null,
    async stop() {
      watcher?.stop();
      stopFollowing();
      stopEmbedding();
      await ctx.embeddings.idle();
      await mcp.close();
      await app.stop();
      readers?.stop();
      ctx.close();
    },
  };
}

/**
 * The OAuth authorization server (docs/remote-access.md): its state in oauth.json beside
 * tokens.json, its audit events in events.log, wrong owner proofs throttled like wrong tokens.
 */
function oauthServer(ctx: App, adminKey: () => string | null): OAuthServer {
  const cfg = ctx.vault.config;
  const limit = cfg.int("server.auth_failure_limit");
  const windowMs = cfg.int("server.auth_failure_window_seconds") * 1000;
  return new OAuthServer({
    store: new OAuthStore(ctx.vault.dataDir),
    baseOf: (request) => baseUrlOf(request, cfg.str("server.public_url")),
    adminKey,
    lifetimes: () => ({ accessSeconds: cfg.int("server.oauth_access_token_seconds"), refreshDays: cfg.int("server.oauth_refresh_token_days") }),
    audit: (kind, fields) => ctx.events.emit({ kind, source: "indx", auth: fields }),
    // Tests serve client metadata documents from 127.0.0.1 over http; nothing else may (docs/decisions.md).
    fetchPolicy: { ...DEFAULT_FETCH_POLICY, allowPrivate: process.env.INDX_OAUTH_TEST_ALLOW_PRIVATE_FETCH === "1" },
    failures: { perProof: new AuthFailureThrottle(limit, windowMs), perAddress: new AuthFailureThrottle(limit * 5, windowMs) },
  });
}

/**
 * The reader workers (server.read_workers, one per core by default), told of every index update
 * and vector change this thread makes so their caches follow (docs/decisions.md).
 */
function startReaders(ctx: App): { pool: ReaderPool; stop(): void } | null {
  const size = ctx.vault.config.get<number | null>("server.read_workers") ?? availableParallelism();
  if (size === 0) return null;
  const pool = new ReaderPool(ctx.vault, size);
  const unlisten = [
    ctx.onIndexUpdate((report, paths, origin) => pool.indexUpdated(report, paths, origin)),
    ctx.embeddings.onVectorsChanged(() => pool.vectorsChanged()),
  ];
  return {
    pool,
    stop() {
      for (const off of unlisten) off();
      pool.close();
    },
  };
}

/**
 * Binds without SO_REUSEPORT (Elysia turns it on): a second server on a busy port would
 * otherwise start silently and take part of the traffic, which may then land in another vault.
 */
function listen(app: ReturnType<typeof createApp>, host: string, port: number): void {
  try {
    app.listen({ hostname: host, port, reusePort: false, error: lastResort });
  } catch (err) {
    if (errnoOf(err) !== "EADDRINUSE") throw err;
    throw new IndxError(
      "validation_failed",
      `Port ${port} on ${host} is already in use (another indx serve?). Pick another port with --port <n>, the config key server.port or INDX_PORT; --port 0 picks a free one.`,
      { port, reason: "port_in_use" },
    );
  }
}

/** Whatever escapes the app's own handlers still gets the JSON envelope, never Bun's plain-text 500. */
function lastResort(err: unknown): Response {
  debugLog("unhandled request failure", { error: err });
  return errorResponse(toIndxError(err));
}
