import { resolve } from "node:path";
import type { App } from "../app/context.ts";
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
import { type AppOptions, createApp, errorResponse } from "./server.ts";

/** One named vault in service: its own routes, tokens, MCP sessions, watcher and event stream. */
interface ServedVault {
  fetch(request: Request): Response | Promise<Response>;
  stop(): Promise<void>;
}

/** What every vault's routes share with the default vault's: the guard, limits, the admin key. */
export type SharedRouteOptions = Omit<AppOptions, "tokens" | "oauth" | "mcp" | "readers">;

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

  constructor(
    private readonly configPath: string,
    private readonly shared: SharedRouteOptions,
    private readonly opts: {
      watch: boolean;
      debounceMs: number;
      notice: (line: string) => void;
      mcp?: McpHttpOptions;
      bringUp: (app: App) => Promise<void>;
      /** The server's authorization server: each named vault is a protected resource of it (docs/decisions.md, "OAuth for named vaults"). */
      oauth?: OAuthServer | null;
    },
  ) {
    this.serverTokens = new ServerTokenStore(configPath);
    this.registry = new VaultRegistry(configPath, (app, name) => this.serve(app, name));
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
      served = (await this.registry.get(decodeURIComponent(name))).served;
    } catch (err) {
      const e = toIndxError(err);
      // Whoever may not see a vault learns nothing of it; an unopenable vault says why, by name
      // only, to the admin and to the vault's own tokens (docs/decisions.md).
      return errorResponse(e.code !== "not_found" && this.mayLearn(request, name) ? e : notFound());
    }
    const rewritten = new Request(inner, request);
    this.received.set(rewritten, request);
    const response = await served.fetch(rewritten);
    // A token of another vault is unknown to this one's store: not_found, never "wrong token here".
    // An OAuth access token keeps its 401 and this vault's challenge: an expired one is refreshed
    // on it, and one minted for another resource is invalid here (RFC 6750 §3.1), not a secret guessed.
    if (response.status === 401 && request.headers.has("authorization") && !(this.opts.oauth && isOAuthAccess(request))) return errorResponse(notFound());
    return response;
  }

  /**
   * Whether the caller may hear why a vault did not open: auth off, the admin key, or a token of
   * that vault. A vault with no data_dir of its own keeps its tokens under its folder's id, which
   * a missing folder no longer gives: only the admin hears then.
   */
  private mayLearn(request: Request, name: string): boolean {
    if (!this.shared.auth) return true;
    const presented = /^Bearer (\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
    if (!presented) return false;
    const adminKey = this.shared.adminKey();
    const dataDir = namedVaults(this.configPath).get(name)?.data_dir;
    if (this.serverTokens.verify(presented, name)) return true;
    if (!dataDir) return adminKey !== null && sameSecret(presented, adminKey);
    return new TokenStore(resolve(expandHome(dataDir))).verify(presented, adminKey) !== null;
  }

  private async serve(app: App, name: string): Promise<ServedVault> {
    app.vault.ensureDataDir();
    await this.opts.bringUp(app);
    const mcp = new McpHttpHandler(app, { ...this.opts.mcp });
    const routes = createApp(app, {
      ...this.shared,
      client: (request) => this.shared.client(this.received.get(request) ?? request),
      tokens: new TokenStore(app.vault.dataDir, { store: this.serverTokens, vault: name }),
      oauth: this.opts.oauth?.forVault(name, (request) => this.received.get(request) ?? request) ?? null,
      mcp: (request, scopes, tokenId, grant) => mcp.handle(request, scopes, tokenId, grant),
    });
    const watcher = this.opts.watch ? new VaultWatcher(app, this.opts.debounceMs) : null;
    watcher?.start();
    const stopFollowing = app.events.followOthers();
    return {
      fetch: (request) => routes.fetch(request),
      async stop() {
        watcher?.stop();
        stopFollowing();
        await mcp.close();
        app.close();
      },
    };
  }

  names(): string[] {
    return this.registry.names();
  }

  async stop(): Promise<void> {
    await Promise.all(this.registry.all().map((v) => v.served.stop()));
  }
}

function isOAuthAccess(request: Request): boolean {
  return /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1]?.startsWith(ACCESS_PREFIX) === true;
}

function notFound(): IndxError {
  return new IndxError("not_found", "No such vault.");
}
