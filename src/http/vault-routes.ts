import { resolve } from "node:path";
import type { App } from "../app/context.ts";
import type { ReaderPool } from "../app/reader-pool.ts";
import { sameVault, VaultDirectoryOf } from "../app/vault-directory.ts";
import { VaultRegistry } from "../app/vaults.ts";
import { ServerTokenStore } from "../auth/server-tokens.ts";
import { sameSecret, TokenStore } from "../auth/tokens.ts";
import { namedVaults } from "../config/load.ts";
import { IndxError, toIndxError } from "../core/errors.ts";
import { expandHome } from "../core/platform-dirs.ts";
import { VaultWatcher } from "../index/build/watcher.ts";
import { McpHttpHandler, type McpHttpOptions } from "../mcp/http.ts";
import { ACCESS_PREFIX } from "../oauth/secrets.ts";
import type { OAuthServer } from "../oauth/server.ts";
import type { Gauges, Metrics } from "./metrics.ts";
import { type AppOptions, createApp, errorResponse, gauges } from "./server.ts";

/** One named vault in service: its own routes, tokens, MCP sessions, watcher and event stream. */
interface ServedVault {
  fetch(request: Request): Response | Promise<Response>;
  /** Aborted when the vault leaves service: its open event streams end with it. */
  retired: AbortSignal;
  readers: ReaderPool | null;
  /** Its tokens: a token of another vault of this server is told not_found before its routes count a wrong token. */
  tokens: TokenStore;
  stop(): Promise<void>;
}

/** What every vault's routes share with the default vault's: the guard, limits, the admin key. */
export type SharedRouteOptions = Omit<AppOptions, "tokens" | "oauth" | "mcp" | "readers">;

/** How often the config file is read for vaults removed or moved while no request names them. */
const RECONCILE_MS = 1_000;

/** `/v1/vaults/{name}/rest` and `/mcp/{name}`: the vault's name and the path its own routes see. */
const VAULT_PATH = /^\/(?:v1\/vaults\/([^/]+)(\/.*)?|mcp\/([^/]+))$/;

/**
 * Several vaults in one server (docs/decisions.md, "Several vaults in one server"): requests under
 * /v1/vaults/{name}/… and /mcp/{name} are answered by that vault's own App and tokens. A token of
 * another vault and an unknown name answer the same not_found, so neither tells a vault exists.
 */
export class NamedVaults {
  private readonly registry: VaultRegistry<ServedVault>;
  /** The request as the listener received it, behind each rewritten one: its peer is the client (rate limits). */
  private readonly received = new WeakMap<Request, Request>();
  /** Tokens for several vaults, beside the config file (docs/decisions.md, "A token for several vaults"). */
  private readonly serverTokens: ServerTokenStore;

  private readonly directory: VaultDirectoryOf;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly configPath: string,
    private readonly shared: SharedRouteOptions,
    private readonly opts: {
      watch: boolean;
      debounceMs: number;
      notice: (line: string) => void;
      mcp?: McpHttpOptions;
      bringUp: (app: App) => Promise<void>;
      /** Reader workers for a vault (server.read_workers), when the default vault has them. */
      readers?: (app: App) => { pool: ReaderPool; stop(): void } | null;
      /** The server's one metrics registry: each vault's series under its name. */
      metrics: Metrics;
      /** The default vault's App and routes (/v1/…, /mcp): a table naming that same vault is served by them. */
      defaultVault: { app: App; tokens: TokenStore; fetch: (request: Request) => Response | Promise<Response> };
      /** The server's authorization server: each named vault is a protected resource of it (docs/decisions.md, "OAuth for named vaults"). */
      oauth?: OAuthServer | null;
    },
  ) {
    this.serverTokens = new ServerTokenStore(configPath);
    const byDefault = {
      fetch: opts.defaultVault.fetch,
      readers: null,
      retired: new AbortController().signal,
      tokens: opts.defaultVault.tokens,
      stop: async () => {},
    };
    this.registry = new VaultRegistry(configPath, {
      serve: (app, name) => this.serve(app, name),
      retire: (opened) => opened.served.stop(),
      // `serve --vault work` and [vaults.work]: one folder, one index, so one App, one watcher
      // and one event stream behind both routes (docs/decisions.md, "One App per vault").
      lend: (vault) => (sameVault(vault, opts.defaultVault.app.vault) ? { app: opts.defaultVault.app, served: byDefault } : null),
    });
    this.directory = new VaultDirectoryOf(opts.defaultVault.app, async (name) => this.registry.stateOf(name));
    opts.defaultVault.app.useVaults(this.directory.forVault(null));
    // A vault removed from the config file closes without waiting for its next request.
    this.timer = setInterval(() => void this.registry.reconcile().catch(() => {}), RECONCILE_MS);
    this.timer.unref?.();
  }

  /** The request as the listener received it, behind one this class rewrote (the client's address). */
  original(request: Request): Request {
    return this.received.get(request) ?? request;
  }

  /** The response for a request under a named vault, or null when the path names none. */
  route(request: Request): Promise<Response> | null {
    // A URL that does not parse (a malformed Host) is the default routes' typed 400, not ours to answer.
    const url = URL.parse(request.url);
    const m = url && VAULT_PATH.exec(url.pathname);
    if (!url || !m) return null;
    const name = m[1] ?? m[3] ?? "";
    const rest = m[3] !== undefined ? "/mcp" : `/v1${m[2] ?? "/"}`;
    return this.answer(request, name, `${url.origin}${rest}${url.search}`);
  }

  private async answer(request: Request, name: string, inner: string): Promise<Response> {
    let served: ServedVault;
    try {
      // A name that does not decode (`%E0`) is no vault's: not_found, never a 500.
      const decoded = decodedName(name);
      if (decoded === null) return this.refuse(request);
      served = (await this.registry.get(decoded)).served;
    } catch (err) {
      const e = toIndxError(err);
      // Whoever may not see a vault learns nothing of it; an unopenable vault says why, by name
      // only, to the admin and to the vault's own tokens (docs/decisions.md).
      return e.code !== "not_found" && this.mayLearn(request, name) ? errorResponse(e) : this.refuse(request);
    }
    // A token of another vault here is no guess at a secret: not_found, and no wrong-token count
    // that would answer 429 where an unknown name answers 404 (docs/decisions.md, "vault_list").
    if (this.ofAnotherVault(request, served)) return errorResponse(notFound());
    // A vault taken out of service (its table removed) ends its requests still open: event streams.
    const rewritten = new Request(new Request(inner, request), { signal: AbortSignal.any([request.signal, served.retired]) });
    this.received.set(rewritten, request);
    const response = await served.fetch(rewritten);
    // A token of another vault is unknown to this one's store: not_found, never "wrong token here".
    // An OAuth access token keeps its 401 and this vault's challenge: an expired one is refreshed
    // on it, and one minted for another resource is invalid here (RFC 6750 §3.1), not a secret guessed.
    if (response.status === 401 && request.headers.has("authorization") && !(this.opts.oauth && isOAuthAccess(request))) return errorResponse(notFound());
    return response;
  }

  /** Whether the request's bearer token is not this vault's but another vault's of this server. */
  private ofAnotherVault(request: Request, served: ServedVault): boolean {
    if (!this.shared.auth) return false;
    const presented = bearerOf(request);
    if (!presented) return false;
    const adminKey = this.shared.adminKey();
    if (served.tokens.verify(presented, adminKey)) return false;
    return this.tokenStores().some((store) => store.file !== served.tokens.file && store.verify(presented, adminKey) !== null);
  }

  /**
   * not_found for a vault the caller may not see or that does not exist. A token valid on no vault
   * of this server is counted as wrong, as a vault's own routes count it, so an unknown name and
   * an existing vault both turn 429 after as many guesses (docs/decisions.md, "vault_list").
   */
  private refuse(request: Request): Response {
    const presented = bearerOf(request);
    if (this.shared.auth && this.shared.wrongTokens && presented) {
      const adminKey = this.shared.adminKey();
      if (!this.tokenStores().some((store) => store.verify(presented, adminKey) !== null))
        try {
          this.shared.wrongTokens.count(request, this.shared.client(this.original(request)).address);
        } catch (err) {
          return errorResponse(toIndxError(err));
        }
    }
    return errorResponse(notFound());
  }

  /** The token stores of every vault this server knows: the default's, those opened, and those whose tables name a data folder. */
  private tokenStores(): TokenStore[] {
    const configured = [...namedVaults(this.configPath).values()].flatMap((t) => (t.data_dir ? [this.storeAt(resolve(expandHome(t.data_dir)))] : []));
    return [this.opts.defaultVault.tokens, ...this.registry.all().map((v) => v.served.tokens), ...configured];
  }

  private readonly stores = new Map<string, TokenStore>();
  private storeAt(dir: string): TokenStore {
    let store = this.stores.get(dir);
    if (!store) this.stores.set(dir, (store = new TokenStore(dir)));
    return store;
  }

  /**
   * Whether the caller may hear why a vault did not open: auth off, the admin key, or a token of
   * that vault. A vault with no data_dir of its own keeps its tokens under its folder's id, which
   * a missing folder no longer gives: only the admin hears then.
   */
  private mayLearn(request: Request, name: string): boolean {
    if (!this.shared.auth) return true;
    const presented = bearerOf(request);
    if (!presented) return false;
    const adminKey = this.shared.adminKey();
    const dataDir = namedVaults(this.configPath).get(name)?.data_dir;
    if (this.serverTokens.verify(presented, name)) return true;
    if (!dataDir) return adminKey !== null && sameSecret(presented, adminKey);
    return this.storeAt(resolve(expandHome(dataDir))).verify(presented, adminKey) !== null;
  }

  private async serve(app: App, name: string): Promise<ServedVault> {
    app.useVaults(this.directory.forVault(name));
    app.vault.ensureDataDir();
    await this.opts.bringUp(app);
    const readers = this.opts.readers?.(app) ?? null;
    const mcp = new McpHttpHandler(app, { ...this.opts.mcp, readers: readers?.pool });
    const tokens = new TokenStore(app.vault.dataDir, { store: this.serverTokens, vault: name });
    const routes = createApp(app, {
      ...this.shared,
      client: (request) => this.shared.client(this.received.get(request) ?? request),
      tokens,
      oauth: this.opts.oauth?.forVault(name, (request) => this.received.get(request) ?? request) ?? null,
      metrics: { registry: this.opts.metrics, vault: name },
      readers: readers?.pool,
      mcp: (request, scopes, tokenId, grant) => mcp.handle(request, scopes, tokenId, grant),
    });
    const watcher = this.opts.watch ? new VaultWatcher(app, this.opts.debounceMs) : null;
    watcher?.start();
    const stopFollowing = app.events.followOthers();
    const retired = new AbortController();
    return {
      fetch: (request) => routes.fetch(request),
      retired: retired.signal,
      readers: readers?.pool ?? null,
      tokens,
      async stop() {
        retired.abort();
        watcher?.stop();
        stopFollowing();
        await mcp.close();
        readers?.stop();
        app.close();
      },
    };
  }

  names(): string[] {
    return this.registry.names();
  }

  /** The gauges of each named vault in service, for the server's /metrics. */
  gauges(): Record<string, Gauges> {
    const out: Record<string, Gauges> = {};
    for (const [name, opened] of this.registry.entries()) out[name] = gauges(opened.app, opened.served.readers, null);
    return out;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.registry.all().map((v) => v.served.stop()));
  }
}

function bearerOf(request: Request): string | undefined {
  return /^Bearer (\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
}

function decodedName(name: string): string | null {
  try {
    return decodeURIComponent(name);
  } catch {
    return null;
  }
}

function isOAuthAccess(request: Request): boolean {
  return bearerOf(request)?.startsWith(ACCESS_PREFIX) === true;
}

function notFound(): IndxError {
  return new IndxError("not_found", "No such vault.");
}
