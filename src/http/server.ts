import { Elysia } from "elysia";
import type { App } from "../app/context.ts";
import type { ReaderPool } from "../app/reader-pool.ts";
import { IndxError, toIndxError } from "../core/errors.ts";
import { debugLog, logEvent } from "../core/log.ts";
import { VERSION } from "../core/version.ts";
import { OAuthServer } from "../oauth/server.ts";
import type { Scope } from "../ops/define.ts";
import type { Grant, GrantSpec } from "../ops/grant.ts";
import { hasScope, invokeOp } from "../ops/invoke.ts";
import { compileGrant } from "../vault/grant.ts";
import { aiEventStream, wantsAiStream } from "./ai-stream.ts";
import { AuthFailureThrottle } from "./auth-throttle.ts";
import { DOCS_ASSETS, DOCS_HTML } from "./docs.ts";
import { eventStream } from "./events-sse.ts";
import { authenticate, checkHost, checkOrigin, corsHeaders, type GuardOptions, type Principal } from "./guard.ts";
import { type Gauges, Metrics } from "./metrics.ts";
import { buildOpenApi } from "./openapi.ts";
import type { ClientView } from "./proxy.ts";
import { RateLimiter } from "./rate-limit.ts";
import { decodePath, inputFromBody, inputFromQuery, inputFromRawBody, isJsonBody } from "./request.ts";
import { matchRoute, type Route, templateOf } from "./routes.ts";

export interface AppOptions extends GuardOptions {
  /** Logs one line per request (route template, status, duration: never paths or bodies). */
  accessLog?: boolean;
  /** MCP over Streamable HTTP at /mcp (src/mcp/http.ts); the route is guarded like /v1. */
  mcp?: (request: Request, scopes: Set<Scope>, tokenId?: string, grant?: GrantSpec | null) => Promise<Response>;
  limits?: RequestLimits;
  /** Threads that answer the safe operations; without them every operation runs on this thread. */
  readers?: ReaderPool | null;
  /** The client behind a request, proxies accounted for (src/http/proxy.ts). */
  client: (request: Request) => ClientView;
  /** Wrong tokens counted for the whole server, every vault's routes together (docs/decisions.md, "vault_list"). */
  wrongTokens?: WrongTokens;
  /**
   * The server's metrics when it serves several vaults: one registry for every vault's routes,
   * `vault` naming these routes' vault (absent: the default vault), `named` giving the gauges of
   * the named vaults in service, shown on /metrics to the server's owner only.
   */
  metrics?: { registry: Metrics; vault?: string; named?: () => Record<string, Gauges> };
}

interface RequestLimits {
  /** Requests per second per token (0: unlimited), and how many may come at once. */
  ratePerSecond: number;
  rateBurst: number;
  /** Failed authentications per client address within the window before it gets 429s (0: off). */
  authFailureLimit: number;
  authFailureWindowMs: number;
}

const NO_LIMITS: RequestLimits = { ratePerSecond: 0, rateBurst: 0, authFailureLimit: 0, authFailureWindowMs: 0 };

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

/** Metric and log labels: the methods a client can use here; anything else is one label. */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

function ok(data: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ ok: true, data }), { status: 200, headers: { ...JSON_HEADERS, ...headers } });
}

export function errorResponse(err: IndxError, headers: Record<string, string> = {}): Response {
  const extra: Record<string, string> = err.code === "unauthorized" ? { "www-authenticate": 'Bearer realm="indx"' } : {};
  const retryAfter = err.details?.retry_after_s;
  if (typeof retryAfter === "number") extra["retry-after"] = String(retryAfter);
  return new Response(JSON.stringify({ ok: false, error: err.toJSON() }), {
    status: err.httpStatus,
    headers: { ...JSON_HEADERS, ...extra, ...headers },
  });
}

/** What a guarded handler knows about its request besides the request itself. */
interface Exchange extends ClientView {
  /** The route template for logs and metrics; the /v1 dispatcher narrows it once it matches. */
  route: string;
  /** The token that authenticated the request (its id, "admin", or "anonymous" without auth); set once admitted. */
  tokenId?: string;
  /** That token's folder grant (docs/permissions.md), set with tokenId; null: the whole vault. */
  grant?: GrantSpec | null;
}

const READ_ONLY: ReadonlySet<Scope> = new Set(["vault:read"]);

type Handler = (scopes: Set<Scope>, exchange: Exchange) => Promise<Response> | Response;

/** Elysia's handler context, reduced to what the guard needs. */
interface HandlerContext {
  request: Request;
}

/** A client may send this many times server.auth_failure_limit wrong tokens in all (each a different guess) before all its wrong tokens get 429. */
const ADDRESS_FAILURE_FACTOR = 5;

/**
 * The REST surface: guards (Host, Origin, throttles, bearer token), then one dispatcher that
 * turns a request into an operation's input and its result into the envelope. No operation logic here.
 */
export function createApp(ctx: App, o: AppOptions) {
  const metrics = o.metrics?.registry ?? new Metrics();
  const vaultLabel = o.metrics?.vault;
  const limits = o.limits ?? NO_LIMITS;
  const rate = new RateLimiter(limits.ratePerSecond, limits.rateBurst);
  const wrongTokens = o.wrongTokens ?? new WrongTokens(limits);
  const openapi: { read?: string; write?: string } = {};
  // The address is the real client's only behind a trusted proxy (docs/decisions.md, "Public deployment").
  const on = (route: string, c: HandlerContext): Exchange => ({ route, ...o.client(c.request) });
  // The OAuth endpoints answer before any token is known: their rate is per client address.
  const oauthRate = new RateLimiter(limits.ratePerSecond, limits.rateBurst);

  const admit = (request: Request, exchange: Exchange): Set<Scope> => {
    let principal: Principal;
    try {
      principal = authenticate(request, o);
    } catch (err) {
      if (err instanceof IndxError && err.details?.reason === "invalid_token") wrongTokens.count(request, exchange.address);
      throw err;
    }
    const wait = rate.take(o.auth ? principal.id : exchange.address);
    if (wait) throw rateLimited("Too many requests for this token.", wait);
    exchange.tokenId = principal.id;
    exchange.grant = principal.grant;
    return principal.scopes;
  };

  const guarded = async (request: Request, exchange: Exchange, authed: boolean, handler: Handler) => {
    const started = performance.now();
    let cors: Record<string, string> = {};
    let res: Response;
    try {
      checkHost(request, o);
      const origin = checkOrigin(request, o);
      if (origin) cors = corsHeaders(origin);
      if (request.method === "OPTIONS") {
        res = new Response(null, { status: 204, headers: cors });
      } else {
        const scopes = authed ? admit(request, exchange) : new Set<Scope>();
        res = await handler(scopes, exchange);
        for (const [k, v] of Object.entries(cors)) res.headers.set(k, v);
      }
    } catch (err) {
      if (!(err instanceof IndxError)) debugLog("request failed", { error: err });
      const e = toIndxError(err);
      res = errorResponse(e, { ...cors, ...challengeOf(e, request) });
    }
    const ms = performance.now() - started;
    const method = KNOWN_METHODS.has(request.method) ? request.method : "OTHER";
    metrics.observe(exchange.route, method, res.status, ms, vaultLabel);
    if (o.accessLog) logEvent("http", { method, route: exchange.route, status: res.status, ms: Math.round(ms * 10) / 10 });
    return res;
  };

  /** A 401 names where OAuth clients find the authorization server (RFC 9728 §5.1); a 403 for a scope names the scope. */
  const challengeOf = (err: IndxError, request: Request): Record<string, string> => {
    if (!o.oauth) return {};
    if (err.code === "unauthorized")
      return { "www-authenticate": o.oauth.challenge(request, err.details?.reason === "invalid_token" ? "invalid_token" : undefined) };
    const needed = err.details?.needed;
    if (err.code === "forbidden" && typeof needed === "string") return { "www-authenticate": o.oauth.challenge(request, "insufficient_scope", needed) };
    return {};
  };

  /** /.well-known/oauth-* and /oauth/*: the Host guard and a per-address rate, then the OAuth server (src/oauth/server.ts). */
  const oauthRoute = async (c: HandlerContext): Promise<Response> => {
    const path = new URL(c.request.url).pathname;
    const exchange = on(OAuthServer.endpointOf(path), c);
    // Metadata, tokens, registration and revocation carry no cookies: any origin may call them. The consent page is same-origin only.
    const open = !path.startsWith("/oauth/authorize");
    const cors: Record<string, string> = open && c.request.headers.has("origin") ? OAUTH_CORS : {};
    const started = performance.now();
    let res: Response;
    try {
      checkHost(c.request, o);
      if (!o.oauth) throw new IndxError("not_found", "OAuth is off here (server.oauth).", { reason: "route" });
      if (c.request.method === "OPTIONS") res = new Response(null, { status: 204, headers: cors });
      else {
        const wait = oauthRate.take(exchange.address);
        if (wait) throw rateLimited("Too many OAuth requests from this client.", wait);
        res = await o.oauth.handle(c.request, exchange.address);
        for (const [k, v] of Object.entries(cors)) res.headers.set(k, v);
      }
    } catch (err) {
      if (!(err instanceof IndxError)) debugLog("oauth request failed", { error: err });
      res = errorResponse(toIndxError(err), cors);
    }
    const method = KNOWN_METHODS.has(c.request.method) ? c.request.method : "OTHER";
    metrics.observe(exchange.route, method, res.status, performance.now() - started, vaultLabel);
    return res;
  };

  const dispatch = async (request: Request, scopes: Set<Scope>, exchange: Exchange): Promise<Response> => {
    const url = new URL(request.url);
    const match = matchRoute(request.method, decodePath(url.pathname));
    if (!match) throw new IndxError("not_found", "No such route. See /openapi.json for the API.", { reason: "route" });
    const { route, tail } = match;
    exchange.route = `${route.method} ${templateOf(route)}`;
    const input =
      route.input === "query"
        ? inputFromQuery(url.searchParams, route.op.input)
        : route.raw && !isJsonBody(request)
          ? await inputFromRawBody(request, url, route.op.input, route.raw.field, ctx.vault.config.int(route.raw.limitKey))
          : await inputFromBody(request, route.raw ? ctx.vault.config.int(route.raw.limitKey) : undefined);
    if (route.wildParam && tail !== null) input[route.wildParam] = tail;
    headersToInput(request, route, input);
    // A client that hangs up stops the model call it was waiting for, and a write that has not
    // begun leaves the writers' queue as `cancelled`, as an MCP cancel does (docs/decisions.md,
    // "One queue of writers per vault"); a write that has begun runs to its end.
    const signal = route.op.ai || !route.op.safe ? request.signal : undefined;
    const caller = { surface: "rest" as const, ...(exchange.tokenId ? { token_id: exchange.tokenId } : {}) };
    const opts = { coerce: route.input === "query" };
    const grant = compileGrant(exchange.grant);
    if (route.op.ai && wantsAiStream(request, input))
      return aiEventStream((sink) => invokeOp(route.op, ctx.forCall({ scopes, signal, aiStream: sink, caller, grant }), input, opts).then((r) => r.result));
    const scoped = ctx.forCall({ scopes, signal, caller, grant });
    const { result, replayed } = await (o.readers ? o.readers.invoke(route.op, scoped, input, opts) : invokeOp(route.op, scoped, input, opts));
    return respond(route, request, result, replayed ? { "x-indx-idempotent-replay": "true" } : {});
  };

  return new Elysia({ name: "indx" })
    .get("/health", (c) => guarded(c.request, on("/health", c), false, () => ok({ status: "ok", version: VERSION })))
    .get("/openapi.json", (c) =>
      guarded(c.request, on("/openapi.json", c), false, (_, exchange) => {
        // Fetched with a token, the document shows what that token may do: a read token sees AI operations suggest-only.
        const form = c.request.headers.has("authorization") && !hasScope(admit(c.request, exchange), "vault:write") ? "read" : "write";
        const doc = (openapi[form] ??= JSON.stringify(buildOpenApi(ctx, form === "read" ? READ_ONLY : undefined)));
        return new Response(doc, { headers: JSON_HEADERS });
      }),
    )
    .get("/docs", (c) => guarded(c.request, on("/docs", c), false, () => new Response(DOCS_HTML, { headers: { "content-type": "text/html; charset=utf-8" } })))
    .get("/docs/*", (c) =>
      guarded(c.request, on("/docs/*", c), false, () => {
        const asset = DOCS_ASSETS[new URL(c.request.url).pathname];
        if (!asset) throw new IndxError("not_found", "No such file.");
        return new Response(asset.body, { headers: { "content-type": asset.type, "cache-control": "max-age=86400" } });
      }),
    )
    .get("/metrics", (c) =>
      guarded(
        c.request,
        on("/metrics", c),
        true,
        // A granted token's gauges count only what its grant sees (docs/permissions.md); only
        // the server's owner learns of the named vaults (docs/decisions.md, "vault_list").
        (_, exchange) =>
          new Response(metrics.render(gauges(ctx, o.readers ?? null, compileGrant(exchange.grant)), ownerOf(exchange) ? (o.metrics?.named?.() ?? {}) : {}), {
            headers: { "content-type": "text/plain; version=0.0.4" },
          }),
      ),
    )
    .get("/v1/events", (c) =>
      guarded(c.request, on("/v1/events", c), true, (scopes, exchange) => {
        if (!hasScope(scopes, "vault:read")) throw new IndxError("forbidden", "The event stream needs the vault:read scope.");
        return eventStream(ctx, c.request, compileGrant(exchange.grant));
      }),
    )
    .all("/.well-known/oauth-protected-resource", oauthRoute, { parse: "none" })
    .all("/.well-known/oauth-protected-resource/*", oauthRoute, { parse: "none" })
    .all("/.well-known/oauth-authorization-server", oauthRoute, { parse: "none" })
    .all("/.well-known/oauth-authorization-server/*", oauthRoute, { parse: "none" })
    .all("/oauth/*", oauthRoute, { parse: "none" })
    .all("/v1/*", (c) => guarded(c.request, on("/v1/*", c), true, (scopes, exchange) => dispatch(c.request, scopes, exchange)), { parse: "none" })
    .all("/v1", (c) => guarded(c.request, on("/v1", c), true, (scopes, exchange) => dispatch(c.request, scopes, exchange)), { parse: "none" })
    .all(
      "/mcp",
      (c) =>
        guarded(c.request, on("/mcp", c), true, (scopes, exchange) => {
          if (!o.mcp) throw new IndxError("not_found", "MCP is not served here.", { reason: "route" });
          return o.mcp(c.request, scopes, exchange.tokenId, exchange.grant);
        }),
      { parse: "none" },
    )
    .onError((c) => {
      // Unknown paths outside /v1 and framework-level failures still get the envelope; their
      // path is never a label (it may name a note).
      const err =
        c.code === "NOT_FOUND"
          ? new IndxError("not_found", "No such route. See /openapi.json for the API.", { reason: "route" })
          : c.code === "PARSE" || c.code === "VALIDATION"
            ? new IndxError("validation_failed", "The request could not be parsed.")
            : new IndxError("internal", "An internal error occurred.");
      return guarded(c.request, on("unmatched", c), false, () => errorResponse(err));
    });
}

const OAUTH_CORS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "content-type, mcp-protocol-version",
  "access-control-max-age": "600",
};

/**
 * Wrong tokens are throttled per presented token and client, and more loosely per client alone
 * (docs/decisions.md, "A valid token is never throttled"); a right token is never refused.
 */
export class WrongTokens {
  private readonly perToken: AuthFailureThrottle;
  private readonly perAddress: AuthFailureThrottle;

  constructor(limits: Pick<RequestLimits, "authFailureLimit" | "authFailureWindowMs">) {
    this.perToken = new AuthFailureThrottle(limits.authFailureLimit, limits.authFailureWindowMs);
    this.perAddress = new AuthFailureThrottle(limits.authFailureLimit * ADDRESS_FAILURE_FACTOR, limits.authFailureWindowMs);
  }

  /** Counts the request's token as wrong; throws rate_limited once this client has sent too many. */
  count(request: Request, address: string): void {
    const presented = `${address}\0${Bun.hash(request.headers.get("authorization") ?? "").toString(36)}`;
    const blocked = Math.max(this.perToken.blockedFor(presented), this.perAddress.blockedFor(address));
    if (blocked) throw rateLimited("Too many wrong tokens from this client; a valid token is still accepted.", blocked);
    this.perToken.recordFailure(presented);
    this.perAddress.recordFailure(address);
  }
}

const rateLimited = (message: string, seconds: number) => new IndxError("rate_limited", `${message} Retry after ${seconds} s.`, { retry_after_s: seconds });

/** If-Match and Idempotency-Key headers fill the op's inputs of the same meaning (a body value wins). */
function headersToInput(request: Request, route: Route, input: Record<string, unknown>): void {
  const props = route.op.input.properties;
  const ifMatch = request.headers.get("if-match");
  if (ifMatch && props.if_match?.type === "string" && input.if_match === undefined) input.if_match = ifMatch;
  const key = request.headers.get("idempotency-key");
  if (key && "idempotency_key" in props && input.idempotency_key === undefined) input.idempotency_key = key;
}

function respond(route: Route, request: Request, data: Record<string, unknown>, extra: Record<string, string>): Response {
  switch (route.respond) {
    case "written": {
      // A dry run created nothing and has no version to name.
      if (data.dry_run === true) return ok(data, extra);
      const headers = typeof data.etag === "string" ? { ...extra, etag: `"${data.etag}"` } : extra;
      const res = ok(data, headers);
      return data.created === true ? new Response(res.body, { status: 201, headers: res.headers }) : res;
    }
    case "etag": {
      const etag = `"${String(data.etag)}"`;
      // A client that has this version already gets 304 and no body (cheap polling for changes).
      const known = request.headers
        .get("if-none-match")
        ?.split(",")
        .map((t) => t.trim().replace(/^W\//, ""));
      if (known?.includes(etag) || known?.includes("*")) return new Response(null, { status: 304, headers: { ...extra, etag } });
      return ok(data, { ...extra, etag });
    }
    case "exists":
      return new Response(null, { status: data.exists ? 200 : 404, headers: extra });
    case "attachment":
      if (typeof data.data_base64 === "string" && new URL(request.url).searchParams.get("download") !== null) {
        return new Response(Buffer.from(data.data_base64, "base64"), {
          headers: {
            ...extra,
            "content-type": String(data.mime),
            etag: `"${String(data.etag)}"`,
            "content-disposition": `attachment; filename*=UTF-8''${encodeURIComponent(String(data.path).split("/").pop() ?? "file")}`,
            "x-content-type-options": "nosniff",
          },
        });
      }
      return ok(data, extra);
    default:
      return ok(data, extra);
  }
}

/** The server's admin key, or anyone when auth is off: who may learn of every vault. */
function ownerOf(exchange: Exchange): boolean {
  return exchange.tokenId === "admin" || exchange.tokenId === "anonymous";
}

export function gauges(ctx: App, readers: ReaderPool | null, grant: Grant | null): Record<string, number> {
  const threads: Record<string, number> = readers ? { indx_read_workers: readers.readyCount } : {};
  try {
    const counts = (grant ? ctx.indexFor(grant) : ctx.index).stats.counts();
    return { indx_index_notes: counts.notes, indx_index_chunks: counts.chunks, indx_index_unresolved_links: counts.unresolvedLinks, ...threads };
  } catch {
    return threads;
  }
}
