import type { Caller } from "../ops/context.ts";
import type { Scope } from "../ops/define.ts";
import type { Grant } from "../ops/grant.ts";
import type { McpHub } from "./hub.ts";
import { ListenStream } from "./listen.ts";
import { ModernServer, methodNotFound } from "./modern.ts";
import { CODE, claimedVersion, envelopeError, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse, rpcError } from "./modern-protocol.ts";

/** subscriptions/listen streams one process holds at once; each is an open connection. */
const MAX_STREAMS = 256;

/** The methods whose target the client mirrors in Mcp-Name (spec, Streamable HTTP, Standard Request Headers). */
const NAMED: Record<string, "name" | "uri"> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" };

/** A header value of visible ASCII, space and tab only (RFC 9110 field values). */
const HEADER_SAFE = /^[\t\x20-\x7e]*$/;

const json = (body: JsonRpcResponse, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

/** The HTTP status of a modern error (spec, Streamable HTTP): the header and version errors are 400, an unknown method 404. */
function statusOf(res: JsonRpcResponse): number {
  if (!("error" in res)) return 200;
  const code = res.error.code;
  if (code === CODE.methodNotFound) return 404;
  if (code === CODE.headerMismatch || code === CODE.unsupportedVersion || code === CODE.missingClientCapability || code === CODE.parseError) return 400;
  return 200;
}

/** Mcp-Name's value, decoded when sent in the `=?base64?…?=` form; null when malformed. */
function decodeName(value: string): string | null {
  if (!HEADER_SAFE.test(value)) return null;
  const m = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(value);
  if (!m) return value;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(atob(m[1] ?? ""), (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}

/**
 * The spec's header checks (Streamable HTTP, Server Validation): MCP-Protocol-Version, Mcp-Method
 * and, for the named methods, Mcp-Name must be present and equal what the body says, so a proxy
 * routing on headers and indx acting on the body cannot disagree. Null when they hold.
 */
export function headerError(request: Request, body: JsonRpcRequest): JsonRpcResponse | null {
  const mismatch = (what: string) => rpcError(body.id, CODE.headerMismatch, `Header mismatch: ${what}`);
  const version = request.headers.get("mcp-protocol-version");
  if (version === null) return mismatch("the MCP-Protocol-Version header is required");
  if (version !== claimedVersion(body)) return mismatch(`MCP-Protocol-Version ${version.slice(0, 40)} differs from _meta's protocol version`);
  const method = request.headers.get("mcp-method");
  if (method === null) return mismatch("the Mcp-Method header is required");
  if (method !== body.method) return mismatch(`Mcp-Method ${method.slice(0, 100)} differs from the body's method`);
  const field = NAMED[body.method];
  if (!field) return null;
  const header = request.headers.get("mcp-name");
  if (header === null) return mismatch(`the Mcp-Name header is required for ${body.method}`);
  const name = decodeName(header);
  if (name === null) return mismatch("Mcp-Name is malformed");
  if (name !== body.params?.[field]) return mismatch(`Mcp-Name differs from params.${field}`);
  return null;
}

/**
 * MCP 2026-07-28 over Streamable HTTP (docs/mcp.md): each POST is one request answered on its own,
 * as JSON or, when it sends progress or log notifications first, as an SSE stream; a
 * subscriptions/listen request's SSE stream stays open. Nothing outlives a request but those
 * streams, so behind a load balancer any indx process on the vault answers any request.
 */
export class ModernHttp {
  private readonly server: ModernServer;
  private readonly streams = new Set<ListenStream>();

  constructor(
    private readonly hub: McpHub,
    private readonly keepAliveMs: number,
  ) {
    this.server = new ModernServer(hub);
  }

  get streamCount(): number {
    return this.streams.size;
  }

  async handle(request: Request, body: JsonRpcRequest, scopes: ReadonlySet<Scope>, caller: Caller, grant: Grant | null): Promise<Response> {
    // The spec's order: the headers agree with the body, then the body's envelope is whole (both 400).
    const refused = headerError(request, body) ?? envelopeError(body);
    if (refused) return json(refused, 400);
    if (body.method === "subscriptions/listen") return this.listen(request, body, scopes, grant);
    if (!this.server.handles(body.method)) {
      const res = methodNotFound(body);
      return json(res, statusOf(res));
    }
    const wantsStream = body.method === "tools/call" && (request.headers.get("accept") ?? "").includes("text/event-stream");
    if (!wantsStream) {
      const res = await this.server.handle(body, { scopes, caller, grant, signal: request.signal, notify: async () => {} });
      return json(res, statusOf(res));
    }
    // A tools/call may send progress and log notifications before its result: an SSE stream, opened at once.
    const { readable, writer } = sseChannel();
    void this.server
      .handle(body, { scopes, caller, grant, signal: request.signal, notify: async (n) => writer.event(n) })
      .then((res) => writer.event(res))
      .finally(() => writer.close());
    return sseResponse(readable);
  }

  private async listen(request: Request, body: JsonRpcRequest, scopes: ReadonlySet<Scope>, grant: Grant | null): Promise<Response> {
    if (this.streams.size >= MAX_STREAMS)
      return json(rpcError(body.id, -32000, `Too many subscriptions/listen streams (${MAX_STREAMS}); retry later.`), 503, { "retry-after": "30" });
    const { readable, writer } = sseChannel();
    const opened = await ListenStream.open(
      this.hub,
      body,
      scopes,
      grant,
      { send: (n, id) => writer.event(n, id), end: (res) => writer.event(res).then(() => writer.close()) },
      request.headers.get("last-event-id"),
    );
    if (!(opened instanceof ListenStream)) {
      await writer.close();
      return json(opened, statusOf(opened));
    }
    this.streams.add(opened);
    const keepAlive = setInterval(() => void writer.comment(), this.keepAliveMs);
    const stop = () => {
      clearInterval(keepAlive);
      this.streams.delete(opened);
      opened.close();
    };
    request.signal.addEventListener("abort", stop, { once: true });
    writer.closed.then(stop, stop);
    return sseResponse(readable);
  }

  /** Server shutdown: every listen stream gets its graceful end. */
  close(): void {
    for (const s of [...this.streams]) s.end();
    this.streams.clear();
  }
}

function sseResponse(readable: ReadableStream<Uint8Array>): Response {
  return new Response(readable, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" },
  });
}

/** An SSE response body written event by event; a write after the client left is dropped. */
function sseChannel() {
  const stream = new TransformStream<Uint8Array, Uint8Array>();
  const w = stream.writable.getWriter();
  const enc = new TextEncoder();
  let open = true;
  const write = async (text: string) => {
    if (!open) return;
    await w.write(enc.encode(text)).catch(() => {
      open = false;
    });
  };
  return {
    readable: stream.readable,
    writer: {
      event: (message: JsonRpcNotification | JsonRpcResponse, id?: string | null) =>
        write(`event: message\n${id ? `id: ${id}\n` : ""}data: ${JSON.stringify(message)}\n\n`),
      comment: () => write(":\n\n"),
      close: async () => {
        if (!open) return;
        open = false;
        await w.close().catch(() => {});
      },
      closed: w.closed,
    },
  };
}
