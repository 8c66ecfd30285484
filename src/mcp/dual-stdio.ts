import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import type { Scope } from "../ops/define.ts";
import type { Grant } from "../ops/grant.ts";
import type { McpHub } from "./hub.ts";
import { ListenStream } from "./listen.ts";
import { ModernServer } from "./modern.ts";
import { isModernRequest, type JsonRpcId, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse, missingEnvelope } from "./modern-protocol.ts";

type Outgoing = JsonRpcNotification | JsonRpcResponse;

/** The request a notifications/cancelled names, if the message is one. */
function cancelledId(message: JSONRPCMessage): JsonRpcId | null {
  if (!("method" in message) || message.method !== "notifications/cancelled" || "id" in message) return null;
  const id = message.params?.requestId;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/**
 * stdio speaking both eras (docs/mcp.md, Transports): a message carrying a protocol version in
 * `_meta` is a 2026-07-28 request and is answered here (ModernServer, or a subscriptions/listen
 * stream on the same stdout, its notifications tagged with the listen request's id); anything else
 * (initialize and the rest of a 2025 session) goes on to the 1.x SDK Server as before. One process
 * may serve both at once.
 */
export class DualStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  private readonly inner = new StdioServerTransport();
  private readonly modern: ModernServer;
  /** 2026 requests in flight and open listen streams, by request id: what a notifications/cancelled may stop. */
  private readonly inFlight = new Map<JsonRpcId, AbortController>();
  private readonly streams = new Map<JsonRpcId, ListenStream>();

  constructor(
    private readonly hub: McpHub,
    private readonly scopes: ReadonlySet<Scope>,
    /** `indx mcp --token`: who every 2026 request is (its id) and what its folder grant lets it see (docs/permissions.md). */
    private readonly as: { grant: Grant | null; tokenId?: string },
    /** Called at the first 2026 request: stdio then brings the index up to date, as after an initialize. */
    private readonly onModern: () => void,
  ) {
    this.modern = new ModernServer(hub);
  }

  async start(): Promise<void> {
    this.inner.onmessage = (message: JSONRPCMessage) => this.route(message);
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => {
      for (const s of this.streams.values()) s.close();
      this.streams.clear();
      for (const c of this.inFlight.values()) c.abort();
      this.onclose?.();
    };
    await this.inner.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.inner.send(message);
  }

  async close(): Promise<void> {
    for (const s of this.streams.values()) s.end();
    this.streams.clear();
    await this.inner.close();
  }

  private route(message: JSONRPCMessage): void {
    const cancelled = cancelledId(message);
    if (cancelled !== null && (this.inFlight.has(cancelled) || this.streams.has(cancelled))) {
      this.inFlight.get(cancelled)?.abort();
      this.streams.get(cancelled)?.close();
      this.streams.delete(cancelled);
      return;
    }
    const malformed = missingEnvelope(message);
    if (malformed) {
      void this.write(malformed);
      return;
    }
    if (!isModernRequest(message)) {
      this.onmessage?.(message);
      return;
    }
    this.onModern();
    void (message.method === "subscriptions/listen" ? this.listen(message) : this.answer(message));
  }

  private write(message: Outgoing): Promise<void> {
    return this.inner.send(message as JSONRPCMessage).catch(() => {});
  }

  private async answer(request: JsonRpcRequest): Promise<void> {
    const abort = new AbortController();
    this.inFlight.set(request.id, abort);
    try {
      const res = await this.modern.handle(request, {
        scopes: this.scopes,
        caller: { surface: "mcp", ...(this.as.tokenId ? { token_id: this.as.tokenId } : {}) },
        grant: this.as.grant,
        signal: abort.signal,
        notify: (n) => this.write(n),
      });
      // A cancelled request gets no answer (spec, Cancellation).
      if (!abort.signal.aborted) await this.write(res);
    } finally {
      this.inFlight.delete(request.id);
    }
  }

  private async listen(request: JsonRpcRequest): Promise<void> {
    const opened = await ListenStream.open(this.hub, request, this.scopes, this.as.grant, {
      send: (n) => void this.write(n),
      end: (res) => void this.write(res),
    });
    if (opened instanceof ListenStream) this.streams.set(request.id, opened);
    else await this.write(opened);
  }
}
