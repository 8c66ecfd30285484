import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { IndxError } from "../core/errors.ts";
import type { Caller } from "../ops/context.ts";
import type { Scope } from "../ops/define.ts";
import type { Grant } from "../ops/grant.ts";
import { hasScope } from "../ops/invoke.ts";
import { AI_RESOURCE_TEMPLATES } from "./ai-resources.ts";
import { visibleTools } from "./catalogue.ts";
import { complete } from "./completions.ts";
import { protocolError, RESOURCE_NOT_FOUND, RpcError } from "./errors.ts";
import type { McpHub } from "./hub.ts";
import { CAPABILITIES } from "./identity.ts";
import { requestLog } from "./logging.ts";
import {
  CACHE_HINTS,
  CODE,
  completeResult,
  envelopeError,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  META,
  metaOf,
  rpcError,
  SUPPORTED_VERSIONS,
} from "./modern-protocol.ts";
import { getPrompt, listPrompts } from "./prompts.ts";
import { listResources, RESOURCE_TEMPLATES, readResource } from "./resources.ts";
import { instructionsOf } from "./session.ts";
import { callTool } from "./tool-call.ts";

/** Who sends one 2026 request, and where its request-scoped notifications (progress, log) go. */
export interface ModernCall {
  scopes: ReadonlySet<Scope>;
  caller: Caller;
  /** The token's folder grant (docs/permissions.md); null: the whole vault. */
  grant: Grant | null;
  /** Aborted when the client gives up on the request (closes its HTTP stream, or cancels over stdio). */
  signal?: AbortSignal;
  /** Sends a notification on this request's own answer stream, before the result. */
  notify(notification: JsonRpcNotification): Promise<void>;
}

type Handler = (params: Record<string, unknown>, call: ModernCall, request: JsonRpcRequest) => Promise<object> | object;

/** Params checked against the 1.x SDK's schema of the same request (the shapes did not change in 2026-07-28). */
function paramsOf<P>(schema: z.ZodType<{ params?: P }>, request: JsonRpcRequest): P | undefined {
  const parsed = schema.safeParse({ method: request.method, params: request.params ?? {} });
  if (!parsed.success) throw new RpcError(CODE.invalidParams, `Invalid params for ${request.method}: ${parsed.error.issues[0]?.message ?? "malformed"}`);
  return parsed.data.params;
}

const needRead = (scopes: ReadonlySet<Scope>) => {
  if (!hasScope(scopes, "vault:read")) throw new IndxError("forbidden", "Resources need the vault:read scope", { needed: "vault:read" });
};

/**
 * The 2026-07-28 request handlers (docs/mcp.md, MCP 2026-07-28): each request stands alone — its
 * scopes come from its own token, its version and capabilities from its `_meta` — so any indx
 * process answers any request. They call the same functions as a 2025 session's handlers
 * (session.ts). subscriptions/listen is a stream, opened by the transport (listen.ts).
 */
export class ModernServer {
  /** Instructions per scope set, until the index changes: discover answers without listing notes each time. */
  private readonly instructions = new Map<string, { generation: number; text: Promise<string> }>();
  private readonly handlers: Record<string, Handler>;

  constructor(private readonly hub: McpHub) {
    this.handlers = {
      "server/discover": async (_p, call) => ({
        supportedVersions: [...SUPPORTED_VERSIONS],
        capabilities: CAPABILITIES,
        instructions: await this.instructionsFor(call.scopes, call.grant),
      }),
      "tools/list": (_p, call, req) => {
        paramsOf(ListToolsRequestSchema, req);
        return { tools: visibleTools(call.scopes, hub.ctx) };
      },
      "tools/call": (_p, call, req) => {
        const params = paramsOf(CallToolRequestSchema, req);
        if (!params) throw new RpcError(CODE.invalidParams, "tools/call needs params");
        const token = params._meta?.progressToken;
        const send = (n: ServerNotification) => call.notify({ jsonrpc: "2.0", ...n });
        return callTool(hub, params.name, params.arguments, {
          app: hub.ctx,
          scopes: call.scopes,
          caller: call.caller,
          grant: call.grant,
          signal: call.signal,
          log: requestLog(metaOf(req)?.[META.logLevel], send),
          progress:
            token === undefined
              ? undefined
              : (progress, total, message) =>
                  send({
                    method: "notifications/progress",
                    params: { progressToken: token, progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) },
                  }),
        });
      },
      "resources/list": async (_p, call, req) => {
        const params = paramsOf(ListResourcesRequestSchema, req);
        await hub.ready;
        return listResources(hub, this.contextOf(call), params?.cursor);
      },
      "resources/templates/list": (_p, _call, req) => {
        paramsOf(ListResourceTemplatesRequestSchema, req);
        return { resourceTemplates: hub.ctx.ai.offers("chat") ? [...RESOURCE_TEMPLATES, ...AI_RESOURCE_TEMPLATES] : RESOURCE_TEMPLATES };
      },
      "resources/read": async (_p, call, req) => {
        const params = paramsOf(ReadResourceRequestSchema, req);
        await hub.ready;
        if (!params) throw new RpcError(CODE.invalidParams, "resources/read needs params");
        return readResource(hub, this.contextOf(call), params.uri);
      },
      "prompts/list": (_p, _call, req) => {
        paramsOf(ListPromptsRequestSchema, req);
        return { prompts: listPrompts() };
      },
      "prompts/get": (_p, call, req) => {
        const params = paramsOf(GetPromptRequestSchema, req);
        if (!params) throw new RpcError(CODE.invalidParams, "prompts/get needs params");
        return getPrompt(params.name, params.arguments, call.scopes, hub.ctx.vault, call.grant);
      },
      "completion/complete": async (_p, call, req) => {
        const params = paramsOf(CompleteRequestSchema, req);
        if (!params) throw new RpcError(CODE.invalidParams, "completion/complete needs params");
        needRead(call.scopes);
        await hub.ready;
        return complete(this.contextOf(call), params);
      },
    };
  }

  /** The methods a 2026 client may call here, besides subscriptions/listen. */
  handles(method: string): boolean {
    return Object.hasOwn(this.handlers, method);
  }

  async handle(request: JsonRpcRequest, call: ModernCall): Promise<JsonRpcResponse> {
    const refused = envelopeError(request);
    if (refused) return refused;
    const handler = Object.hasOwn(this.handlers, request.method) ? this.handlers[request.method] : undefined;
    if (!handler) return methodNotFound(request);
    // Another replica may have written since the last request: caches here must not answer for it.
    this.hub.syncWithLog();
    try {
      const result = await handler(request.params ?? {}, call, request);
      return { jsonrpc: "2.0", id: request.id, result: { ...completeResult(result), ...CACHE_HINTS[request.method] } };
    } catch (err) {
      const e = protocolError(err);
      const rpc = e instanceof RpcError ? e : new RpcError(CODE.internal, e.message);
      // 2026-07-28 moved "resource not found" to Invalid params (-32602); 2025 sessions keep -32002. A read's error names its URI.
      const code = rpc.code === RESOURCE_NOT_FOUND ? CODE.invalidParams : rpc.code;
      const uri = request.method === "resources/read" ? request.params?.uri : undefined;
      const data = typeof uri === "string" ? { ...(typeof rpc.data === "object" ? rpc.data : {}), uri } : rpc.data;
      return rpcError(request.id, code, rpc.message, data);
    }
  }

  private contextOf(call: ModernCall) {
    return this.hub.ctx.forCall({ scopes: call.scopes, caller: call.caller, signal: call.signal, grant: call.grant });
  }

  private instructionsFor(scopes: ReadonlySet<Scope>, grant: Grant | null): Promise<string> {
    // Per grant too: a folder grant's instructions count only the notes it may read.
    const key = `${[...scopes].sort().join(",")}\n${grant?.key ?? ""}`;
    const cached = this.instructions.get(key);
    if (cached && cached.generation === this.hub.generation) return cached.text;
    const text = instructionsOf(this.hub, scopes, grant);
    this.instructions.set(key, { generation: this.hub.generation, text });
    return text;
  }
}

/** Methods of 2025 (ping, logging/setLevel, resources/subscribe, initialize) are unknown to a 2026 request. */
export function methodNotFound(request: JsonRpcRequest): JsonRpcResponse {
  const removed = ["ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "initialize"].includes(request.method);
  const hint = removed ? ` It is not part of 2026-07-28${request.method.startsWith("resources/") ? ": use subscriptions/listen" : ""}.` : "";
  return rpcError(request.id, CODE.methodNotFound, `Method not found: ${request.method.slice(0, 100)}.${hint}`);
}
