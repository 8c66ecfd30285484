import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { Value } from "@sinclair/typebox/value";
import type { App } from "../app/context.ts";
import type { ReaderPool } from "../app/reader-pool.ts";
import { logEvent } from "../core/log.ts";
import type { Scope } from "../ops/define.ts";
import { type GrantSpec, GrantSpecSchema } from "../ops/grant.ts";
import { compileGrant } from "../vault/grant.ts";
import { BoundedEventStore } from "./event-store.ts";
import { HttpSession, TrackedTransport } from "./http-session.ts";
import { McpHub } from "./hub.ts";
import { ModernHttp } from "./modern-http.ts";
import { CODE, isModernRequest, META, MODERN_VERSION, missingEnvelope, rpcError as modernError } from "./modern-protocol.ts";
import { createSession } from "./session.ts";

export interface McpHttpOptions {
  /** Most sessions at once; beyond it an initialize evicts an idle session of the token holding most (never of a token holding fewer than the requester), or is answered 503 (default 64). */
  maxSessions?: number;
  /** A session without any request (and without an open GET stream) for this long is closed (default 30 min). */
  idleTimeoutMs?: number;
  /** How often idle sessions are swept (default: a tenth of idleTimeoutMs, 1 s to 60 s). */
  sweepIntervalMs?: number;
  /** SSE keep-alive comments; below Bun's 10 s idle socket timeout (default 5 s). */
  keepAliveMs?: number;
  /** The SSE `retry` sent with each stream's first event: how long a client waits before resuming (default 1 s). */
  retryMs?: number;
  /** The server's reader pool: read tools run there, off the thread that answers (src/app/reader-pool.ts). */
  readers?: ReaderPool | null;
}

const MAX_INIT_BODY = 1024 * 1024;
/** A 2026 request carries a tool call's whole input (an attachment's base64 too): bounded like a REST body. */
const MAX_BODY = 8 * 1024 * 1024;

function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

async function readJson(request: Request, limit: number): Promise<{ ok: true; value: unknown; size: number } | { ok: false; response: Response }> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) return { ok: false, response: rpcError(413, -32000, "Request body too large.") };
  const reader = request.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (reader) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return { ok: false, response: rpcError(413, -32000, "Request body too large.") };
    }
    chunks.push(value);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString("utf8")), size };
  } catch {
    return { ok: false, response: rpcError(400, -32700, "Parse error: Invalid JSON") };
  }
}

/** A version header of the modern era: the request must then be a 2026 one, whatever its body says. */
function isModernHeader(request: Request): boolean {
  return request.headers.get("mcp-protocol-version") === MODERN_VERSION;
}

const isNotification = (m: unknown) => typeof m === "object" && m !== null && "method" in m && !("id" in m);

/** Who opened a session: a hash of the request's credentials (the guard has verified them already). */
function ownerOf(request: Request): string {
  return Bun.hash.xxHash64(request.headers.get("authorization") ?? "").toString(16);
}

const sessionNotFound = () => rpcError(404, -32001, "Session not found: initialize a new session.");

/**
 * MCP over Streamable HTTP at /mcp (docs/mcp.md, Transports): one SDK transport + Server per session (Mcp-Session-Id),
 * created by an initialize request. The caller (the REST app's guard) has already checked Host,
 * Origin and the bearer token and passes that token's scopes: they fix the session's catalogue at
 * initialize and are re-checked on every later request. Each session keeps its recent SSE events,
 * so a client whose stream dropped resumes with Last-Event-ID.
 */
export class McpHttpHandler {
  readonly hub: McpHub;
  /** MCP 2026-07-28 on the same endpoint: stateless requests and subscriptions/listen streams. */
  readonly modern: ModernHttp;
  private readonly sessions = new Map<string, HttpSession>();
  private readonly sweeper: ReturnType<typeof setInterval>;
  private readonly maxSessions: number;
  private readonly idleTimeoutMs: number;
  private closed = false;
  /** Initialize requests in flight: counted against the cap before their session exists. */
  private opening = 0;

  constructor(
    ctx: App,
    private readonly opts: McpHttpOptions = {},
  ) {
    this.hub = new McpHub(ctx);
    this.hub.readers = opts.readers ?? null;
    this.modern = new ModernHttp(this.hub, opts.keepAliveMs ?? 5000);
    this.maxSessions = opts.maxSessions ?? 64;
    this.idleTimeoutMs = opts.idleTimeoutMs ?? 30 * 60_000;
    const every = opts.sweepIntervalMs ?? Math.min(60_000, Math.max(1000, this.idleTimeoutMs / 10));
    this.sweeper = setInterval(() => this.sweep(), every);
    this.sweeper.unref?.();
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  async handle(request: Request, scopes: ReadonlySet<Scope>, tokenId?: string, grant?: GrantSpec | null): Promise<Response> {
    if (this.closed) return rpcError(503, -32000, "The server is shutting down.");
    // The token's id rides along for the ai.invocation event (src/mcp/session.ts), its folder
    // grant for every call of the request (docs/permissions.md); the token itself never does.
    const extra = { ...(tokenId ? { token_id: tokenId } : {}), ...(grant ? { grant } : {}) };
    const authInfo = { token: "", clientId: "indx", scopes: [...scopes], ...(tokenId || grant ? { extra } : {}) };
    const id = request.headers.get("mcp-session-id");
    // A 2026 request ignores any session id it carries (spec, Streamable HTTP, Backward Compatibility).
    if (id && !(request.method === "POST" && isModernHeader(request))) {
      const s = this.sessions.get(id);
      if (!s) return sessionNotFound();
      // Ending a session is for whoever opened it; to anyone else it does not exist.
      if (request.method === "DELETE" && s.owner !== ownerOf(request)) return sessionNotFound();
      s.touch();
      if (request.method === "GET") s.trackStream(request.signal);
      return s.transport.handleRequest(request, { authInfo });
    }
    if (request.method !== "POST") return rpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required.");
    const body = await readJson(request, MAX_BODY);
    if (!body.ok) return body.response;
    // MCP 2026-07-28: a request that names its version in _meta (or a modern version header) stands alone, without a session.
    if (isModernRequest(body.value) || isModernHeader(request)) return this.modernRequest(request, body.value, scopes, tokenId, grant);
    const malformed = missingEnvelope(body.value);
    if (malformed) return Response.json(malformed, { status: 400 });
    const messages = Array.isArray(body.value) ? body.value : [body.value];
    // A notification needs no session in 2026 (a 2.x client's cancel of a listen stream, say): accepted, nothing to do.
    if (messages.length > 0 && messages.every(isNotification)) return new Response(null, { status: 202 });
    if (!messages.some(isInitializeRequest)) return rpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required.");
    if (body.size > MAX_INIT_BODY) return rpcError(413, -32000, "Request body too large.");
    if (this.sessions.size + this.opening >= this.maxSessions && !this.evictIdle(ownerOf(request))) {
      logEvent("mcp.session_refused", { sessions: this.sessions.size });
      return rpcError(503, -32000, "Too many MCP sessions; close one (DELETE /mcp) or retry later.", { "retry-after": "30" });
    }
    this.opening++;
    try {
      return await this.open(request, body.value, scopes, authInfo);
    } finally {
      this.opening--;
    }
  }

  private modernRequest(request: Request, body: unknown, scopes: ReadonlySet<Scope>, tokenId?: string, grant?: GrantSpec | null): Promise<Response> | Response {
    // A notification (a 2.x client's cancel of a listen stream, which closing the stream already ended): nothing to answer.
    if (isNotification(body)) return new Response(null, { status: 202 });
    if (!isModernRequest(body)) {
      // A modern version header on a body without the required _meta: the request is malformed (spec, Versioning).
      const id = typeof body === "object" && body !== null && "id" in body && (typeof body.id === "string" || typeof body.id === "number") ? body.id : null;
      return Response.json(modernError(id, CODE.invalidParams, `A 2026-07-28 request is one JSON-RPC request with _meta["${META.protocolVersion}"].`), {
        status: 400,
      });
    }
    return this.modern.handle(request, body, scopes, { surface: "mcp", ...(tokenId ? { token_id: tokenId } : {}) }, compileGrant(grant ?? null));
  }

  private async open(
    request: Request,
    parsedBody: unknown,
    scopes: ReadonlySet<Scope>,
    authInfo: { token: string; clientId: string; scopes: string[]; extra?: Record<string, unknown> },
  ) {
    const spec = authInfo.extra?.grant;
    const session = await createSession(this.hub, { scopes: new Set(scopes), grant: compileGrant(Value.Check(GrantSpecSchema, spec) ? spec : null) });
    let entry: HttpSession | null = null;
    const transport: TrackedTransport = new TrackedTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      keepAliveMs: this.opts.keepAliveMs ?? 5000,
      eventStore: new BoundedEventStore(),
      retryInterval: this.opts.retryMs ?? 1000,
      onsessioninitialized: (id) => {
        entry = new HttpSession(id, ownerOf(request), transport, session);
        this.sessions.set(id, entry);
        logEvent("mcp.session_opened", { sessions: this.sessions.size });
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id && this.sessions.get(id)?.transport === transport) {
        this.sessions.delete(id);
        logEvent("mcp.session_closed", { sessions: this.sessions.size });
      }
    };
    await session.server.connect(transport);
    const res = await transport.handleRequest(request, { parsedBody, authInfo });
    if (!entry) await session.close().catch(() => {}); // the initialize failed: nothing to keep
    return res;
  }

  /**
   * Ends an idle session to make room for one `requester` opens; false when none may go. No token
   * pushes out another's sessions (docs/decisions.md, "MCP sessions: one token cannot crowd out
   * another"): the victim is the least recently used idle session of whoever holds the most
   * sessions among the requester and the tokens that hold more than it does — the requester's own
   * when it is the one holding most.
   */
  private evictIdle(requester: string): boolean {
    const held = new Map<string, number>();
    for (const s of this.sessions.values()) held.set(s.owner, (held.get(s.owner) ?? 0) + 1);
    const own = held.get(requester) ?? 0;
    let victim: HttpSession | null = null;
    for (const s of this.sessions.values()) {
      if (!s.idle) continue;
      const count = held.get(s.owner) ?? 0;
      if (s.owner !== requester && count <= own) continue;
      const best = victim ? (held.get(victim.owner) ?? 0) : -1;
      if (count > best || (count === best && victim !== null && s.lastSeen < victim.lastSeen)) victim = s;
    }
    if (!victim) return false;
    logEvent("mcp.session_evicted", { idle_ms: Date.now() - victim.lastSeen });
    void this.end(victim);
    return true;
  }

  private sweep(): void {
    const now = Date.now();
    for (const s of [...this.sessions.values()])
      if (s.idle && now - s.lastSeen > this.idleTimeoutMs) {
        logEvent("mcp.session_expired", {});
        void this.end(s);
      }
  }

  private async end(s: HttpSession): Promise<void> {
    this.sessions.delete(s.id);
    await s.close();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    this.modern.close();
    await Promise.all([...this.sessions.values()].map((s) => this.end(s)));
    this.hub.close();
  }
}
