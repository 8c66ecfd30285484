/**
 * Streamable HTTP in front of `indx mcp` over stdio, for scripts/mcp-conformance.ts: the
 * conformance suite only speaks HTTP, so each of its requests is written to an indx process's
 * stdin and answered from its stdout. 2026-07-28 requests share one process (they are stateless);
 * a 2025 `initialize` starts a process of its own, named by the session id the bridge mints.
 * Request ids are renumbered so requests from many suite clients never collide on one stdout.
 * The bridge validates no headers and keeps no state of its own beyond that routing: what the
 * suite checks of MCP is what indx answered on stdio.
 */

type Message = Record<string, any>;

interface Waiter {
  id: unknown;
  onNotification(n: Message): void;
  resolve(response: Message): void;
}

class StdioPeer {
  private readonly proc: Bun.Subprocess<"pipe", "pipe", "ignore">;
  private readonly waiting = new Map<string, Waiter>();
  private readonly byToken = new Map<string, string>();
  private next = 0;
  /** Notifications tied to no request (a 2025 session's resources/updated, list_changed): its GET stream. */
  unsolicited: ((n: Message) => void) | null = null;

  constructor(bin: string, env: Record<string, string>) {
    this.proc = Bun.spawn([bin, "mcp"], { env, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
    void this.read();
  }

  private async read(): Promise<void> {
    let buf = "";
    for await (const chunk of this.proc.stdout) {
      buf += new TextDecoder().decode(chunk);
      let cut = buf.indexOf("\n");
      while (cut >= 0) {
        const line = buf.slice(0, cut).trim();
        buf = buf.slice(cut + 1);
        if (line) this.dispatch(JSON.parse(line));
        cut = buf.indexOf("\n");
      }
    }
  }

  private dispatch(m: Message): void {
    if ("id" in m && !("method" in m)) {
      const w = this.waiting.get(String(m.id));
      if (!w) return;
      this.waiting.delete(String(m.id));
      w.resolve({ ...m, id: w.id, ...(m.result?._meta?.["io.modelcontextprotocol/subscriptionId"] ? { result: this.retag(m.result, w.id) } : {}) });
      return;
    }
    const sub = m.params?._meta?.["io.modelcontextprotocol/subscriptionId"];
    const token = m.params?.progressToken;
    const owner = sub !== undefined ? String(sub) : token !== undefined ? this.byToken.get(String(token)) : undefined;
    const w = owner ? this.waiting.get(owner) : undefined;
    if (w) w.onNotification(sub !== undefined ? { ...m, params: this.retag(m.params, w.id) } : m);
    else if (m.method === "notifications/message" && this.waiting.size > 0) [...this.waiting.values()].at(-1)?.onNotification(m);
    else this.unsolicited?.(m);
  }

  /** The suite's own id back in place of the bridge's in `_meta`'s subscription id. */
  private retag(obj: Message, id: unknown): Message {
    return { ...obj, _meta: { ...obj._meta, "io.modelcontextprotocol/subscriptionId": id } };
  }

  send(m: Message, onNotification: (n: Message) => void = () => {}): Promise<Message> | null {
    if (!("id" in m)) {
      this.write(m);
      return null;
    }
    const id = `bridge-${++this.next}`;
    const token = m.params?._meta?.progressToken;
    if (token !== undefined) this.byToken.set(String(token), id);
    const response = new Promise<Message>((resolve) => this.waiting.set(id, { id: m.id, onNotification, resolve }));
    this.write({ ...m, id });
    return response;
  }

  /** Stops a listen stream: cancelled over stdio, as the spec says for that transport. */
  cancel(suiteId: unknown): void {
    for (const [id, w] of this.waiting)
      if (w.id === suiteId) {
        this.waiting.delete(id);
        this.write({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
      }
  }

  private write(m: Message): void {
    this.proc.stdin.write(`${JSON.stringify(m)}\n`);
    this.proc.stdin.flush();
  }

  async close(): Promise<void> {
    this.proc.kill();
    await this.proc.exited;
  }
}

const sse = (m: Message) => `event: message\ndata: ${JSON.stringify(m)}\n\n`;
const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache" };

/** The HTTP status the 2026 transport gives a JSON-RPC error (spec, Streamable HTTP). */
function statusOf(m: Message): number {
  const code = m.error?.code;
  if (code === -32601) return 404;
  if (code === -32020 || code === -32021 || code === -32022) return 400;
  return 200;
}

/** Answers one request: JSON, or SSE when notifications come before the result (or for a listen stream, which stays open). */
function answer(peer: StdioPeer, m: Message, signal: AbortSignal, modern: boolean): Promise<Response> {
  const listen = m.method === "subscriptions/listen";
  if (!listen && m.params?._meta?.progressToken === undefined) {
    const pending = peer.send(m);
    if (!pending) return Promise.resolve(new Response(null, { status: 202 }));
    return pending.then((r) => Response.json(r, { status: modern ? statusOf(r) : 200 }));
  }
  const enc = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  const pending = peer.send(m, (n) => controller?.enqueue(enc.encode(sse(n))));
  void pending?.then((r) => {
    controller?.enqueue(enc.encode(sse(r)));
    controller?.close();
  });
  if (listen) signal.addEventListener("abort", () => peer.cancel(m.id), { once: true });
  return Promise.resolve(new Response(body, { headers: SSE_HEADERS }));
}

export function startStdioBridge(bin: string, env: Record<string, string>) {
  const shared = new StdioPeer(bin, env);
  const sessions = new Map<string, StdioPeer>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const sessionId = request.headers.get("mcp-session-id");
      const session = sessionId ? sessions.get(sessionId) : undefined;
      if (sessionId && !session) return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }, { status: 404 });
      if (request.method === "DELETE" && session && sessionId) {
        sessions.delete(sessionId);
        await session.close();
        return new Response(null, { status: 200 });
      }
      if (request.method === "GET") {
        if (!session) return new Response(null, { status: 405 });
        const enc = new TextEncoder();
        const body = new ReadableStream<Uint8Array>({
          start: (c) => {
            session.unsolicited = (n) => c.enqueue(enc.encode(sse(n)));
          },
          cancel: () => {
            session.unsolicited = null;
          },
        });
        return new Response(body, { headers: SSE_HEADERS });
      }
      const m = (await request.json()) as Message;
      if (session) return answer(session, m, request.signal, false);
      if (m.method === "initialize") {
        const peer = new StdioPeer(bin, env);
        const id = crypto.randomUUID();
        sessions.set(id, peer);
        const r = await peer.send(m);
        return Response.json(r, { headers: { "mcp-session-id": id } });
      }
      return answer(shared, m, request.signal, true);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/mcp`,
    async stop() {
      server.stop(true);
      await Promise.all([shared.close(), ...[...sessions.values()].map((p) => p.close())]);
    },
  };
}
