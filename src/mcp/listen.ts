import { IndxError } from "../core/errors.ts";
import type { Scope } from "../ops/define.ts";
import type { Grant } from "../ops/grant.ts";
import { hasScope } from "../ops/invoke.ts";
import { protocolError, RpcError } from "./errors.ts";
import type { HubSession, McpHub } from "./hub.ts";
import {
  CODE,
  envelopeError,
  type JsonRpcId,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  META,
  metaOf,
  rpcError,
} from "./modern-protocol.ts";
import { SubscriptionSet } from "./subscription-set.ts";

/** Resource URIs one stream may watch, and how long each may be: a listen request is bounded like any input. */
export const MAX_LISTEN_URIS = 256;
const MAX_URI_CHARS = 8192;

/** Where a stream's messages go: its HTTP response (SSE) or stdout. `eventId`: the vault event it reports up to. */
export interface ListenSink {
  send(notification: JsonRpcNotification, eventId: string | null): void;
  /** The graceful end: the listen request's own response, then the stream closes. */
  end(response: JsonRpcResponse): void;
}

interface Filter {
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The filter a listen request asks for, checked: what indx honours of it (tools and prompts never change while it runs). */
function filterOf(params: Record<string, unknown>): Filter {
  const asked = params.notifications;
  if (!isObject(asked)) throw new RpcError(CODE.invalidParams, "subscriptions/listen needs params.notifications (the notification types to receive).");
  const uris = asked.resourceSubscriptions;
  if (uris !== undefined && (!Array.isArray(uris) || !uris.every((u) => typeof u === "string" && u.length > 0 && u.length <= MAX_URI_CHARS)))
    throw new RpcError(CODE.invalidParams, `notifications.resourceSubscriptions must be an array of resource URIs (each at most ${MAX_URI_CHARS} characters).`);
  if (Array.isArray(uris) && uris.length > MAX_LISTEN_URIS)
    throw new RpcError(CODE.invalidParams, `A subscriptions/listen stream watches at most ${MAX_LISTEN_URIS} resources; open another for more.`, {
      code: "validation_failed",
      message: "too many resourceSubscriptions",
      details: { max: MAX_LISTEN_URIS },
    });
  return {
    ...(asked.resourcesListChanged === true ? { resourcesListChanged: true as const } : {}),
    ...(Array.isArray(uris) ? { resourceSubscriptions: [...new Set(uris as string[])] } : {}),
  };
}

/**
 * One subscriptions/listen stream (docs/mcp.md, subscriptions/listen): the 2026 form of a 2025
 * session's resources/subscribe set, with the same matching (SubscriptionSet). Its notifications
 * carry the vault event they report up to (`_meta["indx/eventId"]`, the SSE id over HTTP); a
 * stream reopened with that id (`_meta["indx/lastEventId"]`, or Last-Event-ID) first reports what
 * the shared event log holds after it, so a change made while the client was away — through this
 * process or another indx process on the same vault — is not lost.
 */
export class ListenStream implements HubSession {
  private readonly set: SubscriptionSet;
  private eventId: string | null = null;
  private detach: (() => void) | null = null;
  private closed = false;

  private constructor(
    private readonly hub: McpHub,
    private readonly id: JsonRpcId,
    private readonly filter: Filter,
    grant: Grant | null,
    private readonly sink: ListenSink,
  ) {
    this.set = new SubscriptionSet(hub, grant, {
      updated: (uri) => this.notify("notifications/resources/updated", { uri }),
      listChanged: () => {
        if (filter.resourcesListChanged) this.notify("notifications/resources/list_changed", {});
      },
    });
  }

  /**
   * Checks the request, subscribes, acknowledges and replays what was missed. An error response
   * instead when the request is malformed, the version unsupported or a URI not a resource.
   */
  static async open(
    hub: McpHub,
    request: JsonRpcRequest,
    scopes: ReadonlySet<Scope>,
    grant: Grant | null,
    sink: ListenSink,
    lastEventId: string | null = null,
  ): Promise<ListenStream | JsonRpcResponse> {
    const refused = envelopeError(request);
    if (refused) return refused;
    let stream: ListenStream | null = null;
    try {
      const filter = filterOf(request.params ?? {});
      if ((filter.resourceSubscriptions?.length || filter.resourcesListChanged) && !hasScope(scopes, "vault:read"))
        throw new IndxError("forbidden", "Resources need the vault:read scope", { needed: "vault:read" });
      stream = new ListenStream(hub, request.id, filter, grant, sink);
      for (const uri of filter.resourceSubscriptions ?? []) await stream.set.add(uri);
    } catch (err) {
      stream?.set.close();
      const e = protocolError(err);
      return e instanceof RpcError ? rpcError(request.id, e.code, e.message, e.data) : rpcError(request.id, CODE.internal, e.message);
    }
    // Attached before the log is read: a change landing meanwhile is reported (perhaps twice), never lost.
    stream.detach = hub.attach(stream);
    sink.send(
      {
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { _meta: { [META.subscriptionId]: request.id }, notifications: stream.filter },
      },
      null,
    );
    const resumeFrom = metaOf(request)?.[META.lastEventId] ?? lastEventId;
    if (typeof resumeFrom === "string" && resumeFrom) stream.resume(resumeFrom);
    return stream;
  }

  indexChanged(changed: readonly string[], listed: readonly string[], eventId: string | null): void {
    if (eventId) this.eventId = eventId;
    this.set.indexChanged(changed, listed);
  }

  /** The changes the shared event log holds after `id`; every watched resource when it no longer holds `id`. */
  private resume(id: string): void {
    const { found, events } = this.hub.ctx.events.after(id);
    if (!found) {
      this.set.announceAll();
      if (this.filter.resourcesListChanged) this.notify("notifications/resources/list_changed", {});
      return;
    }
    const changed = new Set<string>();
    const listed = new Set<string>();
    for (const e of events) {
      if (!e.kind.startsWith("note.")) continue;
      for (const p of [e.path, e.from, e.to])
        if (typeof p === "string") {
          changed.add(p);
          if (e.kind !== "note.updated") listed.add(p);
        }
      this.eventId = e.id;
    }
    // A base result's reading before the gap is not known here: it is announced, to be read again
    // — when something the stream may see changed, so a hidden edit is not replayed as one.
    if (this.set.indexChanged([...changed], [...listed])) this.set.announceResults();
  }

  private notify(method: string, params: Record<string, unknown>): void {
    if (this.closed) return;
    const meta = { [META.subscriptionId]: this.id, ...(this.eventId ? { [META.eventId]: this.eventId } : {}) };
    this.sink.send({ jsonrpc: "2.0", method, params: { ...params, _meta: meta } }, this.eventId);
  }

  /** The client went away (stream closed, cancelled): stop quietly. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.detach?.();
    this.set.close();
  }

  /** The server ends the stream (shutdown): the listen request's response says it ended on purpose. */
  end(): void {
    if (this.closed) return;
    this.close();
    this.sink.end({ jsonrpc: "2.0", id: this.id, result: { resultType: "complete", _meta: { [META.subscriptionId]: this.id } } });
  }
}
