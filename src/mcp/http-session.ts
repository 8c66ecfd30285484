import {
  type HandleRequestOptions,
  WebStandardStreamableHTTPServerTransport,
  type WebStandardStreamableHTTPServerTransportOptions,
} from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CancelledNotificationSchema,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpSession } from "./session.ts";

/**
 * The SDK's Streamable HTTP transport, counting the requests it has received and not yet answered,
 * and making every POST stream of a session resumable when the session negotiated a protocol
 * version that allows it.
 */
export class TrackedTransport extends WebStandardStreamableHTTPServerTransport {
  private readonly unanswered = new Set<RequestId>();
  /** The protocol version answered to initialize. */
  private negotiated: string | null = null;

  constructor(options: WebStandardStreamableHTTPServerTransportOptions) {
    super(options);
    // The Server keeps a handler set before it connects and calls it first with every message.
    this.onmessage = (message) => this.received(message);
  }

  get requestsInFlight(): number {
    return this.unanswered.size;
  }

  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) this.unanswered.delete(message.id ?? "");
    if (isJSONRPCResultResponse(message) && typeof message.result.protocolVersion === "string" && "serverInfo" in message.result)
      this.negotiated = message.result.protocolVersion;
    return super.send(message, options);
  }

  override handleRequest(req: Request, options?: HandleRequestOptions): Promise<Response> {
    return super.handleRequest(this.withNegotiatedVersion(req), options);
  }

  /**
   * The SDK opens a POST stream with a priming event (an event id and `retry`: what lets a client
   * resume it) only when that request's MCP-Protocol-Version header is 2025-11-25 or later. What
   * the client can read was settled at initialize, so a POST that declares another supported
   * version is handled as the negotiated one. A missing or unsupported header is left to the SDK.
   */
  private withNegotiatedVersion(req: Request): Request {
    const declared = req.headers.get("mcp-protocol-version");
    if (req.method !== "POST" || !this.negotiated || declared === null || declared === this.negotiated) return req;
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(declared)) return req;
    const headers = new Headers(req.headers);
    headers.set("mcp-protocol-version", this.negotiated);
    return new Request(req, { headers });
  }

  private received(message: JSONRPCMessage): void {
    if (isJSONRPCRequest(message)) this.unanswered.add(message.id);
    else if (isJSONRPCNotification(message)) {
      // A cancelled request is never answered (MCP spec, cancellation).
      const cancelled = CancelledNotificationSchema.safeParse(message);
      if (cancelled.success && cancelled.data.params.requestId !== undefined) this.unanswered.delete(cancelled.data.params.requestId);
    }
  }
}

/**
 * One Streamable HTTP session: its transport and MCP session, the token that opened it (as a
 * hash: only that token may end it) and whether it is in use. A session with a request in flight
 * or an open SSE stream is busy; any other is idle, and the least recently used idle session is
 * the one evicted when the session cap is reached.
 */
export class HttpSession {
  lastSeen = Date.now();
  private streams = 0;

  constructor(
    readonly id: string,
    readonly owner: string,
    readonly transport: TrackedTransport,
    readonly session: McpSession,
  ) {}

  get idle(): boolean {
    return this.streams === 0 && this.transport.requestsInFlight === 0;
  }

  touch(): void {
    this.lastSeen = Date.now();
  }

  /** An SSE stream (GET) counts as use until the client drops it. */
  trackStream(signal: AbortSignal): void {
    this.streams++;
    signal.addEventListener(
      "abort",
      () => {
        this.streams = Math.max(0, this.streams - 1);
        this.touch();
      },
      { once: true },
    );
  }

  close(): Promise<void> {
    return this.session.close().catch(() => {});
  }
}
