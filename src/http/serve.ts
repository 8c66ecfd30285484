import { availableParallelism } from "node:os";
import { basename } from "node:path";
import type { App } from "../app/context.ts";
import { ReaderPool } from "../app/reader-pool.ts";
import { newToken, TokenStore } from "../auth/tokens.ts";
import { writeConfigValue } from "../config/load.ts";
import { INDEX_NEEDS_BUILD, IndxError, toIndxError } from "../core/errors.ts";
import { debugLog, logEvent } from "../core/log.ts";
import type { ProgressFn } from "../core/progress.ts";
import { VaultWatcher } from "../index/build/watcher.ts";
import { McpHttpHandler, type McpHttpOptions } from "../mcp/http.ts";
import { DEFAULT_FETCH_POLICY } from "../oauth/client-metadata.ts";
import { OAuthServer } from "../oauth/server.ts";
import { OAuthStore } from "../oauth/store.ts";
import { compileGrant } from "../vault/grant.ts";
import { storageError } from "../vault/vault.ts";
import { AuthFailureThrottle } from "./auth-throttle.ts";
import { checkBind } from "./bind-policy.ts";
import { isLoopback } from "./guard.ts";
import { Listener } from "./listener.ts";
import { Metrics } from "./metrics.ts";
import { clientView, originOf, TrustedProxies } from "./proxy.ts";
import { createApp, errorResponse, WrongTokens } from "./server.ts";
import { loadTlsPair, type TlsPair, tlsFilesOf, watchTlsPair } from "./tls.ts";
import { NamedVaultOAuth } from "./vault-oauth.ts";
import { NamedVaults } from "./vault-routes.ts";

export interface ServeOptions {
  host: string;
  port: number;
  watch?: boolean;
  onIndexProgress?: ProgressFn;
  /** Where human notices go (stderr by default): the admin token hint, the URL, warnings. */
  notice?: (line: string) => void;
  /** Session cap and idle timeout of MCP at /mcp. */
  mcp?: McpHttpOptions;
  /** `serve --insecure-bind`: plain http beyond loopback without a trusted proxy, this once. */
  insecureBind?: boolean;
}

export interface RunningServer {
  /** Where this process listens (https when it holds a certificate). */
  url: string;
  /** What clients are told to use: server.public_url, else `url`. */
  publicUrl: string;
  /** The certificate being served, or null for plain http. */
  tls(): TlsPair | null;
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
  // Refused before the index is touched: a wrong deployment fails in a second, not after a build.
  const tlsFiles = tlsFilesOf(cfg.str("server.tls_cert"), cfg.str("server.tls_key"));
  const tls = tlsFiles ? loadTlsPair(tlsFiles) : null;
  const trusted = new TrustedProxies(cfg.list("server.trusted_proxies"));
  const forced = checkBind({
    host: opts.host,
    tls: tls !== null,
    trustedProxies: trusted.size,
    allowInsecure: opts.insecureBind === true || cfg.get<boolean>("server.allow_insecure_bind") === true,
  });
  if (forced) notice(forced);
  else if (!isLoopback(opts.host)) notice(`binding to ${opts.host}: indx is reachable from other machines (bearer tokens required).`);
  const publicUrl = cfg.str("server.public_url");

  ctx.vault.ensureDataDir();
  let adminKey = cfg.str("server.api_key");
  if (auth && !adminKey) {
    adminKey = newToken();
    writeConfigValue(cfg.path, "server.api_key", adminKey);
    cfg.noteWritten("server.api_key", adminKey);
    notice("Created an admin token in your indx config. Print it with: indx config reveal-api-key");
  }

  await bringIndexUp(ctx, notice, opts.onIndexProgress);

  const readers = startReaders(ctx);
  const tokens = new TokenStore(ctx.vault.dataDir);
  const key = adminKey;
  const mcp = new McpHttpHandler(ctx, { ...opts.mcp, readers: readers?.pool });
  let listener: Listener | null = null;
  const proxy = { trusted, publicUrl, tls: tls !== null };
  // One view of who sent a request and where they reached us: the rate limits key on its address,
  // OAuth's issuer and resource are its origin (docs/remote-access.md, Deployment).
  let vaults: NamedVaults | null = null;
  const client = (request: Request) => {
    // A request a named vault's route rewrote for the default routes keeps its client's address.
    const received = vaults?.original(request) ?? request;
    return clientView(received, listener?.peerOf(received) ?? "unknown", proxy);
  };
  const oauthOn = auth && cfg.get<boolean>("server.oauth") !== false;
  const oauth = oauthOn
    ? oauthServer(
        ctx,
        () => key,
        (request) => client(request).origin,
      )
    : null;
  const limits = {
    ratePerSecond: cfg.int("server.rate_limit_per_second"),
    rateBurst: cfg.int("server.rate_limit_burst"),
    authFailureLimit: cfg.int("server.auth_failure_limit"),
    authFailureWindowMs: cfg.int("server.auth_failure_window_seconds") * 1000,
  };
  const shared = {
    host: opts.host,
    allowedHosts: allowedHosts(opts.host, cfg.list("server.allowed_hosts"), publicUrl),
    client,
    corsOrigins: cfg.list("server.cors_origins"),
    auth,
    adminKey: () => key,
    accessLog: process.env.INDX_ACCESS_LOG === "1",
    limits,
    // Every vault's routes count wrong tokens together (docs/decisions.md, "vault_list").
    wrongTokens: new WrongTokens(limits),
  };
  const metrics = new Metrics();
  const app = createApp(ctx, {
    ...shared,
    metrics: { registry: metrics, named: () => named.gauges() },
    tokens,
    oauth,
    mcp: (request, scopes, tokenId, grant) => mcp.handle(request, scopes, tokenId, grant),
    readers: readers?.pool,
  });
  // The named vaults of the config file, each with its own App, tokens and events (docs/decisions.md).
  const named = new NamedVaults(cfg.path, shared, {
    watch: opts.watch !== false,
    debounceMs: cfg.int("index.debounce_ms"),
    notice,
    mcp: opts.mcp,
    bringUp: (vaultApp) => bringIndexUp(vaultApp, notice),
    metrics,
    // Each named vault in service reads on threads of its own, as the default does (docs/decisions.md).
    readers: readers ? startReaders : undefined,
    defaultVault: { app: ctx, tokens, fetch: (request) => app.fetch(request) },
    oauth,
  });
  vaults = named;
  const fetch = (request: Request) => named.route(request) ?? app.fetch(request);
  try {
    listener = new Listener({ host: opts.host, port: opts.port, tls, fetch, error: lastResort });
  } catch (err) {
    readers?.stop();
    await mcp.close();
    await named.stop();
    throw err;
  }
  const bound = listener;
  const port = bound.port;
  const shownHost = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  const url = `${tls ? "https" : "http"}://${shownHost}:${port}`;
  const stopTlsWatch =
    tlsFiles && tls
      ? watchTlsPair(
          tlsFiles,
          tls,
          (pair) => swapCertificate(bound, pair, notice),
          (err) => tlsReloadFailed(err, notice),
        )
      : () => {};

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
  logEvent("server.started", { port, auth, tls: tls !== null, ...(tls ? { tls_fingerprint: tls.fingerprint, tls_not_after: tls.notAfter } : {}) });
  const shown = publicUrl ? originOf(publicUrl) : url;
  notice(`indx is serving ${basename(ctx.vault.root)} at ${url}${publicUrl ? `, public at ${shown}` : ""}  (API docs: ${shown}/docs)`);
  return {
    url,
    publicUrl: shown,
    tls: () => bound.tls,
    port,
    watcher,
    mcp,
    readers: readers?.pool ?? null,
    async stop() {
      stopTlsWatch();
      watcher?.stop();
      stopFollowing();
      stopEmbedding();
      await ctx.embeddings.idle();
      await mcp.close();
      await bound.stop();
      await named.stop();
      readers?.stop();
      ctx.close();
    },
  };
}

/** The index brought up to date, built on first start or after damage (docs/decisions.md). */
export async function bringIndexUp(ctx: App, notice: (line: string) => void, onProgress?: ProgressFn): Promise<void> {
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
    const r = await ctx.updateIndex({ build: true, rebuild: err.code === "index_corrupt" }, { onProgress: onProgress });
    notice(`Indexed ${r.added} files in ${r.durationMs} ms${r.warnings.length ? `, ${r.warnings.length} warnings (see indx vault status)` : ""}.`);
  }
}

/**
 * The OAuth authorization server (docs/remote-access.md): its state in oauth.json beside
 * tokens.json, its audit events in events.log, wrong owner proofs throttled like wrong tokens.
 */
function oauthServer(ctx: App, adminKey: () => string | null, baseOf: (request: Request) => string): OAuthServer {
  const cfg = ctx.vault.config;
  const limit = cfg.int("server.auth_failure_limit");
  const windowMs = cfg.int("server.auth_failure_window_seconds") * 1000;
  const named = new NamedVaultOAuth(cfg.path);
  return new OAuthServer({
    store: new OAuthStore(ctx.vault.dataDir),
    baseOf,
    adminKey,
    lifetimes: () => ({ accessSeconds: cfg.int("server.oauth_access_token_seconds"), refreshDays: cfg.int("server.oauth_refresh_token_days") }),
    // A named vault's grants are audited in its own events.log, by its name (docs/decisions.md, "OAuth for named vaults").
    audit: (kind, fields) => (fields.vault === undefined ? ctx.events : named.eventsOf(fields.vault)).emit({ kind, source: "indx", auth: fields }),
    vaults: named,
    // Tests serve client metadata documents from 127.0.0.1 over http; nothing else may (docs/decisions.md).
    fetchPolicy: { ...DEFAULT_FETCH_POLICY, allowPrivate: process.env.INDX_OAUTH_TEST_ALLOW_PRIVATE_FETCH === "1" },
    // The compiler every request uses: a glob it would refuse later is refused on the consent page.
    checkFolders: (spec) => void compileGrant(spec),
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
  const pool = new ReaderPool(ctx.vault, size, undefined, ctx.vault.config.int("server.read_nice"));
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
 * The DNS-rebinding guard's list (src/http/guard.ts) with the public host added, so a proxy that
 * passes the public Host through is let in. A wildcard bind with no list accepts every Host, and
 * naming the public host must not narrow that.
 */
function allowedHosts(host: string, configured: string[], publicUrl: string | null): string[] {
  const wildcard = host === "0.0.0.0" || host === "::";
  if (!publicUrl || (wildcard && configured.length === 0)) return configured;
  return [...configured, new URL(publicUrl).hostname];
}

/** A renewed certificate goes into service; if the port cannot be bound again the old pair keeps serving. */
function swapCertificate(listener: Listener, pair: TlsPair, notice: (line: string) => void): void {
  try {
    listener.swapTls(pair);
  } catch (err) {
    tlsReloadFailed(toIndxError(err), notice);
    return;
  }
  logEvent("server.tls_reloaded", { tls_fingerprint: pair.fingerprint, tls_not_after: pair.notAfter });
  notice(`Serving the renewed TLS certificate (${pair.fingerprint.slice(0, 23)}…, valid until ${pair.notAfter}).`);
}

function tlsReloadFailed(err: IndxError, notice: (line: string) => void): void {
  logEvent("server.tls_reload_failed", { message: err.message });
  notice(`warning: the TLS files changed but cannot be used, so the previous certificate is still served: ${err.message}`);
}

/** Whatever escapes the app's own handlers still gets the JSON envelope, never Bun's plain-text 500. */
function lastResort(err: unknown): Response {
  debugLog("unhandled request failure", { error: err });
  return errorResponse(toIndxError(err));
}
