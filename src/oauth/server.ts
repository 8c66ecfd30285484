import type { Scope } from "../ops/define.ts";
import { type GrantSpec, validateGrantSpec } from "../ops/grant.ts";
import { Authorizer, type FailureThrottle, readBounded } from "./authorize.ts";
import { ClientMetadataFetcher, type FetchPolicy, isMetadataUrl, validRedirectUri } from "./client-metadata.ts";
import { OAuthError, oauthErrorResponse } from "./errors.ts";
import { type AccessHolder, type Audit, GrantService, type Lifetimes } from "./grants.ts";
import { authorizationServerMetadata, bearerChallenge, OAUTH_PATHS, protectedResourceMetadata } from "./metadata.ts";
import { newId } from "./secrets.ts";
import type { OAuthClientRecord, OAuthStore } from "./store.ts";

export interface OAuthOptions {
  store: OAuthStore;
  /** This server's base URL as the client reached it (server.public_url, else the origin a trusted proxy reports, else the request's own: clientView in src/http/proxy.ts). */
  baseOf: (request: Request) => string;
  adminKey: () => string | null;
  lifetimes: () => Lifetimes;
  audit: Audit;
  fetchPolicy: FetchPolicy;
  failures: { perProof: FailureThrottle; perAddress: FailureThrottle };
  /**
   * Checks the folders an owner typed on the consent page (throws validation_failed). serve passes
   * the compiler every request uses, so a glob it would refuse later is refused at consent; the
   * default is validateGrantSpec alone.
   */
  checkFolders?: (spec: GrantSpec) => void;
  /**
   * The server's named vaults (docs/decisions.md, "OAuth for named vaults"): each is a protected
   * resource of its own at `<base>/mcp/<name>`, its grants in its own oauth.json. Absent: the
   * default vault alone.
   */
  vaults?: NamedVaultStores;
}

/** The named vaults' OAuth state as serve finds it: configured names, each one's store. */
export interface NamedVaultStores {
  has(name: string): boolean;
  /** The store in the named vault's data folder (throws when the vault cannot be opened). */
  storeOf(name: string): OAuthStore;
  /** Every configured named vault's store that can be opened now. */
  all(): OAuthStore[];
}

/**
 * What the HTTP routes of one vault ask of OAuth: the OAuth endpoints, the challenge a 401 or 403
 * carries, and who an access token is there. The default vault's is the OAuthServer itself; a
 * named vault's comes from `forVault`.
 */
export interface ProtectedResource {
  handle(request: Request, address: string): Promise<Response>;
  challenge(request: Request, error?: "invalid_token" | "insufficient_scope", scope?: string): string;
  verifyAccess(token: string, request: Request): AccessHolder | null;
}

const MAX_BODY = 16 * 1024;
const JSON_HEADERS = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };

/**
 * The OAuth 2.1 authorization server inside `indx serve` (docs/remote-access.md): metadata,
 * registration, authorization with consent, tokens and revocation. The HTTP surface hands it the
 * requests under /.well-known/oauth-* and /oauth/ and asks it who an access token is.
 */
export class OAuthServer implements ProtectedResource {
  readonly grants: GrantService;
  private readonly authorizer: Authorizer;
  private readonly fetcher: ClientMetadataFetcher;

  constructor(private readonly o: OAuthOptions) {
    const vaults = o.vaults;
    this.grants = new GrantService(
      o.store,
      o.lifetimes,
      o.audit,
      vaults && {
        of: (vault) => (vault === null ? o.store : vaults.storeOf(vault)),
        all: () => [o.store, ...vaults.all()],
      },
    );
    this.fetcher = new ClientMetadataFetcher(o.fetchPolicy);
    this.authorizer = new Authorizer({
      store: o.store,
      grants: this.grants,
      resolveClient: (id) => this.resolveClient(id),
      adminKey: o.adminKey,
      audit: o.audit,
      failures: o.failures,
      checkFolders: o.checkFolders ?? ((spec) => void validateGrantSpec(spec)),
      isVault: (name) => vaults?.has(name) ?? false,
      storeOf: (name) => {
        if (!vaults) throw new OAuthError("invalid_target", "This server has no named vaults.");
        return vaults.storeOf(name);
      },
    });
  }

  base(request: Request): string {
    return this.o.baseOf(request);
  }

  /** Whether this server answers `path` (then `handle` does). */
  static owns(path: string): boolean {
    return path.startsWith("/.well-known/oauth-") || path.startsWith("/oauth/");
  }

  /** The endpoint name of a path, for metrics and rate-limit keys. */
  static endpointOf(path: string): string {
    if (path.startsWith(OAUTH_PATHS.protectedResource)) return OAUTH_PATHS.protectedResource;
    if (path.startsWith(OAUTH_PATHS.authorizationServer)) return OAUTH_PATHS.authorizationServer;
    return Object.values(OAUTH_PATHS).find((p) => p === path) ?? "/oauth/*";
  }

  async handle(request: Request, address: string): Promise<Response> {
    const path = new URL(request.url).pathname;
    const base = this.base(request);
    const method = request.method;
    try {
      if (path === OAUTH_PATHS.protectedResource || path.startsWith(`${OAUTH_PATHS.protectedResource}/`)) {
        // RFC 9728 §3.1: a named vault's metadata is at its resource path after the well-known one.
        const vault = /^\/mcp\/([^/]+)$/.exec(path.slice(OAUTH_PATHS.protectedResource.length))?.[1];
        if (vault !== undefined && !this.o.vaults?.has(vault)) return json({ error: "not_found", error_description: "No such protected resource." }, 404);
        return get(method, () => json(protectedResourceMetadata(base, vault ?? null)));
      }
      if (path === OAUTH_PATHS.authorizationServer || path.startsWith(`${OAUTH_PATHS.authorizationServer}/`))
        return get(method, () => json(authorizationServerMetadata(base)));
      if (path === OAUTH_PATHS.authorize) {
        if (method === "GET") return await this.authorizer.start(request, base);
        if (method === "POST") return await this.authorizer.decide(request, base, address);
        return notAllowed("GET, POST");
      }
      if (path === OAUTH_PATHS.token) return method === "POST" ? json(await this.token(request, base)) : notAllowed("POST");
      if (path === OAUTH_PATHS.register) return method === "POST" ? json(await this.register(request), 201) : notAllowed("POST");
      if (path === OAUTH_PATHS.revoke) return method === "POST" ? await this.revoke(request) : notAllowed("POST");
      return json({ error: "not_found", error_description: "No such OAuth endpoint." }, 404);
    } catch (err) {
      if (err instanceof OAuthError) return oauthErrorResponse(err);
      throw err;
    }
  }

  /** Who an OAuth access token is (its grant id) and its scopes, if it is live and minted for this server's default vault. */
  verifyAccess(token: string, request: Request): AccessHolder | null {
    return this.grants.verifyAccess(token, this.base(request));
  }

  challenge(request: Request, error?: "invalid_token" | "insufficient_scope", scope?: string): string {
    return bearerChallenge(this.base(request), error, scope);
  }

  /**
   * The named vault `name` as a protected resource: its 401 points at its own metadata and only
   * tokens granted for `<base>/mcp/<name>` pass (docs/decisions.md, "OAuth for named vaults").
   * `original` gives the request as the listener received it (the client's address and proxy headers).
   */
  forVault(name: string, original: (request: Request) => Request = (r) => r): ProtectedResource {
    const base = (request: Request) => this.base(original(request));
    return {
      handle: (request, address) => this.handle(request, address),
      challenge: (request, error, scope) => bearerChallenge(base(request), error, scope, name),
      verifyAccess: (token, request) => this.grants.verifyAccess(token, base(request), name),
    };
  }

  private async resolveClient(clientId: string): Promise<OAuthClientRecord> {
    if (clientId.length > 2000) throw new OAuthError("invalid_client", "The client_id is too long.");
    if (isMetadataUrl(clientId)) return this.fetcher.resolve(clientId);
    const known = this.o.store.client(clientId);
    if (!known) throw new OAuthError("invalid_client", "No client is registered with this client_id.");
    return known;
  }

  private async token(request: Request, base: string) {
    const form = await formOf(request);
    const clientId = one(form, "client_id");
    if (!clientId) throw new OAuthError("invalid_client", "Send client_id (indx serves public clients).", 401);
    // The client must still exist (a metadata document that now refuses it stops its refreshes).
    await this.resolveClient(clientId).catch((err) => {
      this.o.audit("auth.failed", { endpoint: "token", client_id: clientId.slice(0, 300), reason: "client_unknown" });
      throw err instanceof OAuthError ? new OAuthError("invalid_client", err.description, 401) : err;
    });
    const resource = one(form, "resource");
    const grantType = one(form, "grant_type");
    if (grantType === "authorization_code") {
      const code = one(form, "code");
      const redirectUri = one(form, "redirect_uri");
      const verifier = one(form, "code_verifier");
      if (!code || !redirectUri) throw new OAuthError("invalid_request", "Send code and redirect_uri.");
      if (!verifier) {
        this.o.audit("auth.failed", { endpoint: "token", client_id: clientId, reason: "pkce_missing" });
        throw new OAuthError("invalid_request", "PKCE is required: send code_verifier.");
      }
      return this.grants.exchangeCode({ code, clientId, redirectUri, verifier, resource, base });
    }
    if (grantType === "refresh_token") {
      const refreshToken = one(form, "refresh_token");
      if (!refreshToken) throw new OAuthError("invalid_request", "Send refresh_token.");
      const scopeText = one(form, "scope");
      const scope =
        scopeText === null ? null : scopeText.split(" ").filter((s): s is Scope => s === "vault:read" || s === "vault:write" || s === "vault:admin");
      if (scopeText !== null && scope?.length !== scopeText.split(" ").filter(Boolean).length) throw new OAuthError("invalid_scope", "Unknown scope.");
      return this.grants.refresh({ refreshToken, clientId, scope, resource, base });
    }
    throw new OAuthError("unsupported_grant_type", "Supported grant types: authorization_code, refresh_token.");
  }

  /** RFC 7591, for clients without a metadata document: public clients, exact redirect URIs. */
  private async register(request: Request) {
    const text = await readBounded(request, MAX_BODY);
    if (text === null) throw new OAuthError("invalid_client_metadata", "The registration is too large.", 413);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new OAuthError("invalid_client_metadata", "The registration is not JSON.");
    }
    if (typeof body !== "object" || body === null || Array.isArray(body))
      throw new OAuthError("invalid_client_metadata", "The registration is not a JSON object.");
    const m = body as Record<string, unknown>;
    const redirects = m.redirect_uris;
    if (!Array.isArray(redirects) || redirects.length === 0 || redirects.length > 20 || !redirects.every((r) => typeof r === "string" && validRedirectUri(r)))
      throw new OAuthError(
        "invalid_redirect_uri",
        "redirect_uris: 1–20 absolute URLs without fragments; https, http only to loopback, or an app's own scheme.",
      );
    const name = typeof m.client_name === "string" && m.client_name.trim() ? m.client_name.trim().slice(0, 100) : "Unnamed application";
    const record: OAuthClientRecord = {
      client_id: newId("client_"),
      client_name: name,
      redirect_uris: redirects as string[],
      created_at: new Date().toISOString(),
    };
    this.o.store.mutate((d) => d.clients.push(record));
    return {
      client_id: record.client_id,
      client_id_issued_at: Math.floor(Date.parse(record.created_at) / 1000),
      client_name: record.client_name,
      redirect_uris: record.redirect_uris,
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  /** RFC 7009: always 200 for a well-formed request, whether or not the token was known. */
  private async revoke(request: Request): Promise<Response> {
    const form = await formOf(request);
    const token = one(form, "token");
    if (!token) throw new OAuthError("invalid_request", "Send token.");
    this.grants.revokeToken(token, one(form, "client_id"));
    return new Response(null, { status: 200, headers: { "cache-control": "no-store" } });
  }
}

async function formOf(request: Request): Promise<URLSearchParams> {
  if (!(request.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded"))
    throw new OAuthError("invalid_request", "Send the request as application/x-www-form-urlencoded.");
  const text = await readBounded(request, MAX_BODY);
  if (text === null) throw new OAuthError("invalid_request", "The request is too large.", 413);
  return new URLSearchParams(text);
}

/** A parameter given once (OAuth 2.1 §3.1: repeated parameters are an error). */
function one(form: URLSearchParams, key: string): string | null {
  const all = form.getAll(key);
  if (all.length > 1) throw new OAuthError("invalid_request", `The parameter ${key} appears more than once.`);
  return all[0] || null;
}

function json(data: unknown, status = 200): Response {
  return new Response(JSON.stringify(data), { status, headers: JSON_HEADERS });
}

function get(method: string, answer: () => Response): Response {
  return method === "GET" || method === "HEAD" ? answer() : notAllowed("GET");
}

function notAllowed(allow: string): Response {
  return new Response(JSON.stringify({ error: "invalid_request", error_description: `Use ${allow}.` }), { status: 405, headers: { ...JSON_HEADERS, allow } });
}
