import {
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
} from "@modelcontextprotocol/sdk/types.js";
import type { McpSession } from "./session.ts";

/** The SDK's Streamable HTTP transport, counting the requests it has received and not yet answered. */
export class TrackedTransport extends WebStandardStreamableHTTPServerTransport {
  private readonly unanswered = new Set<RequestId>();

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
    return super.send(message, options);
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
