import { Elysia } from "elysia";
import { IndxError, toIndxError } from "../core/errors.ts";
import { debugLog, logEvent } from "../core/log.ts";
import { VERSION } from "../core/version.ts";
import type { OpContext } from "../ops/context.ts";
import type { Scope } from "../ops/define.ts";
import { hasScope, invokeOp } from "../ops/invoke.ts";
import { DOCS_ASSETS, DOCS_HTML } from "./docs.ts";
import { eventStream } from "./events-sse.ts";
import { authenticate, checkHost, checkOrigin, corsHeaders, type GuardOptions } from "./guard.ts";
import { Metrics } from "./metrics.ts";
import { buildOpenApi } from "./openapi.ts";
import { decodePath, inputFromBody, inputFromQuery } from "./request.ts";
import { matchRoute, type Route, templateOf } from "./routes.ts";

export interface AppOptions extends GuardOptions {
  /** Logs one line per request (route template, status, duration: never paths or bodies). */
  accessLog?: boolean;
  /** MCP over Streamable HTTP at /mcp (src/mcp/http.ts); the route is guarded like /v1. */
  mcp?: (request: Request, scopes: Set<Scope>) => Promise<Response>;
}

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

function ok(data: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ ok: true, data }), { status: 200, headers: { ...JSON_HEADERS, ...headers } });
}

export function errorResponse(err: IndxError, headers: Record<string, string> = {}): Response {
  const extra: Record<string, string> = err.code === "unauthorized" ? { "www-authenticate": 'Bearer realm="indx"' } : {};
  return new Response(JSON.stringify({ ok: false, error: err.toJSON() }), {
    status: err.httpStatus,
    headers: { ...JSON_HEADERS, ...extra, ...headers },
  });
}

/**
 * The REST surface: guards (Host, Origin, bearer token), then one dispatcher that turns a
 * request into an operation's input and its result into the envelope. No operation logic here.
 */
export function createApp(ctx: OpContext, o: AppOptions) {
  const metrics = new Metrics();
  let openapi: string | null = null;

  const guarded = async (request: Request, authed: boolean, handler: (scopes: Set<Scope>) => Promise<Response> | Response) => {
    const started = performance.now();
    const route = new URL(request.url).pathname;
    let cors: Record<string, string> = {};
    let res: Response;
    try {
      checkHost(request, o);
      const origin = checkOrigin(request, o);
      if (origin) cors = corsHeaders(origin);
      if (request.method === "OPTIONS") {
        res = new Response(null, { status: 204, headers: cors });
      } else {
        const scopes = authed ? authenticate(request, o) : new Set<Scope>();
        res = await handler(scopes);
        for (const [k, v] of Object.entries(cors)) res.headers.set(k, v);
      }
    } catch (err) {
      if (!(err instanceof IndxError)) debugLog("request failed", { error: err });
      res = errorResponse(toIndxError(err), cors);
    }
    const template = res.headers.get("x-indx-route") ?? (route.startsWith("/v1/") ? "/v1/*" : route);
    res.headers.delete("x-indx-route");
    const ms = performance.now() - started;
    metrics.observe(template, request.method, res.status, ms);
    if (o.accessLog) logEvent("http", { method: request.method, route: template, status: res.status, ms: Math.round(ms * 10) / 10 });
    return res;
  };

  const dispatch = async (request: Request, scopes: Set<Scope>): Promise<Response> => {
    const url = new URL(request.url);
    const match = matchRoute(request.method, decodePath(url.pathname));
    if (!match) throw new IndxError("not_found", "No such route. See /openapi.json for the API.", { reason: "route" });
    const { route, tail } = match;
    const input = route.input === "body" ? await inputFromBody(request) : inputFromQuery(url.searchParams, route.op.input);
    if (route.wildParam && tail !== null) input[route.wildParam] = tail;
    headersToInput(request, route, input);
    const scoped = ctx.withScopes(scopes);
    const tag: Record<string, string> = { "x-indx-route": `${route.method} ${templateOf(route)}` };
    const { result, replayed } = await invokeOp(route.op, scoped, input, { coerce: route.input === "query" });
    if (replayed) tag["x-indx-idempotent-replay"] = "true";
    return respond(route, request, result as Record<string, unknown>, tag);
  };

  return new Elysia({ name: "indx" })
    .get("/health", ({ request }) => guarded(request, false, () => ok({ status: "ok", version: VERSION })))
    .get("/openapi.json", ({ request }) => guarded(request, false, () => new Response((openapi ??= JSON.stringify(buildOpenApi())), { headers: JSON_HEADERS })))
    .get("/docs", ({ request }) => guarded(request, false, () => new Response(DOCS_HTML, { headers: { "content-type": "text/html; charset=utf-8" } })))
    .get("/docs/*", ({ request }) =>
      guarded(request, false, () => {
        const asset = DOCS_ASSETS[new URL(request.url).pathname];
        if (!asset) throw new IndxError("not_found", "No such file.");
        return new Response(asset.body, { headers: { "content-type": asset.type, "cache-control": "max-age=86400" } });
      }),
    )
    .get("/metrics", ({ request }) =>
      guarded(request, true, () => new Response(metrics.render(gauges(ctx)), { headers: { "content-type": "text/plain; version=0.0.4" } })),
    )
    .get("/v1/events", ({ request }) =>
      guarded(request, true, (scopes) => {
        if (!hasScope(scopes, "vault:read")) throw new IndxError("forbidden", "The event stream needs the vault:read scope.");
        return eventStream(ctx, request);
      }),
    )
    .all("/v1/*", ({ request }) => guarded(request, true, (scopes) => dispatch(request, scopes)), { parse: "none" })
    .all("/v1", ({ request }) => guarded(request, true, (scopes) => dispatch(request, scopes)), { parse: "none" })
    .all(
      "/mcp",
      ({ request }) =>
        guarded(request, true, (scopes) => {
          if (!o.mcp) throw new IndxError("not_found", "MCP is not served here.", { reason: "route" });
          return o.mcp(request, scopes);
        }),
      { parse: "none" },
    )
    .onError(({ code, request }) => {
      // Unknown paths outside /v1 and framework-level failures still get the envelope.
      const err =
        code === "NOT_FOUND"
          ? new IndxError("not_found", "No such route. See /openapi.json for the API.", { reason: "route" })
          : code === "PARSE" || code === "VALIDATION"
            ? new IndxError("validation_failed", "The request could not be parsed.")
            : new IndxError("internal", "An internal error occurred.");
      return guarded(request, false, () => errorResponse(err));
    });
}

/** If-Match and Idempotency-Key headers fill the op's inputs of the same meaning (a body value wins). */
function headersToInput(request: Request, route: Route, input: Record<string, unknown>): void {
  const props = route.op.input.properties as Record<string, unknown>;
  const ifMatch = request.headers.get("if-match");
  if (ifMatch && "if_match" in props && input.if_match === undefined) input.if_match = ifMatch;
  const key = request.headers.get("idempotency-key");
  if (key && "idempotency_key" in props && input.idempotency_key === undefined) input.idempotency_key = key;
}

function respond(route: Route, request: Request, data: Record<string, unknown>, tag: Record<string, string>): Response {
  switch (route.respond) {
    case "written": {
      const headers = typeof data.etag === "string" ? { ...tag, etag: `"${data.etag}"` } : tag;
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
      if (known?.includes(etag) || known?.includes("*")) return new Response(null, { status: 304, headers: { ...tag, etag } });
      return ok(data, { ...tag, etag });
    }
    case "exists":
      return new Response(null, { status: data.exists ? 200 : 404, headers: tag });
    case "attachment":
      if (typeof data.data_base64 === "string" && new URL(request.url).searchParams.get("download") !== null) {
        return new Response(Buffer.from(data.data_base64, "base64"), {
          headers: {
            ...tag,
            "content-type": String(data.mime),
            etag: `"${String(data.etag)}"`,
            "content-disposition": `attachment; filename*=UTF-8''${encodeURIComponent(String(data.path).split("/").pop() ?? "file")}`,
            "x-content-type-options": "nosniff",
          },
        });
      }
      return ok(data, tag);
    default:
      return ok(data, tag);
  }
}

function gauges(ctx: OpContext): Record<string, number> {
  try {
    const counts = ctx.index.stats.counts();
    return { indx_index_notes: counts.notes, indx_index_chunks: counts.chunks, indx_index_unresolved_links: counts.unresolvedLinks };
  } catch {
    return {};
  }
}
