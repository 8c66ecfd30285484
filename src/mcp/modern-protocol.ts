import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { SERVER_INFO } from "./identity.ts";

/**
 * MCP 2026-07-28, the "modern" era (docs/mcp.md, MCP 2026-07-28): no initialize and no session;
 * every request names its protocol version and the client's capabilities in `_meta`. The names
 * below are the specification's; indx writes this era itself beside the 1.x SDK's 2025 sessions
 * (docs/decisions.md, "MCP 2026-07-28 beside 2025-11-25").
 */
export const MODERN_VERSION = "2026-07-28";

/** Every version indx speaks, newest first: the modern one per request, the others through initialize. */
export const SUPPORTED_VERSIONS: readonly string[] = [MODERN_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v !== MODERN_VERSION)];

export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
  /** indx's own: the vault event a listen notification reports up to, and where a resumed stream starts. */
  eventId: "indx/eventId",
  lastEventId: "indx/lastEventId",
} as const;

/** JSON-RPC error codes of the 2026 revision (its -32020… range) and the standard ones it uses. */
export const CODE = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  headerMismatch: -32020,
  missingClientCapability: -32021,
  unsupportedVersion: -32022,
} as const;

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

export type JsonRpcResponse =
  | { jsonrpc: "2.0"; id: JsonRpcId | null; result: Record<string, unknown> }
  | { jsonrpc: "2.0"; id: JsonRpcId | null; error: { code: number; message: string; data?: unknown } };

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function metaOf(message: unknown): Record<string, unknown> | null {
  if (!isObject(message) || !isObject(message.params)) return null;
  return isObject(message.params._meta) ? message.params._meta : null;
}

/** The version a message claims in `_meta`, or null: a message without it is 2025-era (or malformed). */
export function claimedVersion(message: unknown): string | null {
  const v = metaOf(message)?.[META.protocolVersion];
  return typeof v === "string" ? v : null;
}

/** A request (an id and a method) of the modern era: it carries a protocol version in `_meta`. */
export function isModernRequest(message: unknown): message is JsonRpcRequest {
  return (
    isObject(message) &&
    typeof message.method === "string" &&
    (typeof message.id === "string" || typeof message.id === "number") &&
    claimedVersion(message) !== null
  );
}

/** Methods only the 2026 era has: without a version in `_meta` such a request is malformed, not a 2025 one. */
const MODERN_ONLY = new Set(["server/discover", "subscriptions/listen"]);

/** A 2026-only request that lacks its `_meta` version: Invalid params (spec, Versioning), else null. */
export function missingEnvelope(message: unknown): JsonRpcResponse | null {
  if (!isObject(message) || typeof message.method !== "string" || !MODERN_ONLY.has(message.method) || claimedVersion(message) !== null) return null;
  const id = typeof message.id === "string" || typeof message.id === "number" ? message.id : null;
  return rpcError(id, CODE.invalidParams, `${message.method} needs _meta["${META.protocolVersion}"] (and the client's capabilities).`);
}

export function rpcError(id: JsonRpcId | null, code: number, message: string, data?: unknown): JsonRpcResponse {
  return { jsonrpc: "2.0", id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}

export function unsupportedVersion(id: JsonRpcId | null, requested: string): JsonRpcResponse {
  const hint = SUPPORTED_VERSIONS.includes(requested) ? ` ${requested} needs an initialize handshake (a session).` : "";
  return rpcError(id, CODE.unsupportedVersion, `Unsupported protocol version ${requested.slice(0, 40)}.${hint}`, {
    supported: [...SUPPORTED_VERSIONS],
    requested,
  });
}

/**
 * Checks a modern request's envelope: its version is 2026-07-28 and it declares client
 * capabilities (the spec makes both required on every request). Null when it may go on.
 */
export function envelopeError(request: JsonRpcRequest): JsonRpcResponse | null {
  const meta = metaOf(request) ?? {};
  const version = String(meta[META.protocolVersion]);
  if (version !== MODERN_VERSION) return unsupportedVersion(request.id, version);
  if (!isObject(meta[META.clientCapabilities]))
    return rpcError(request.id, CODE.invalidParams, `_meta["${META.clientCapabilities}"] is required on every request (an empty object declares none).`);
  return null;
}

/** Every modern result: `resultType` and the server's identity in `_meta`. */
export function completeResult(result: object, extraMeta: Record<string, unknown> = {}): Record<string, unknown> {
  const base = result as Record<string, unknown>;
  const meta = isObject(base._meta) ? base._meta : {};
  return { ...base, resultType: "complete", _meta: { ...meta, ...extraMeta, [META.serverInfo]: { ...SERVER_INFO } } };
}

/**
 * Cache hints of a list or read (docs/mcp.md, "Caching"). Everything is `private`: the catalogue
 * follows the token's scopes and resources are the user's notes. Catalogues (tools, prompts,
 * templates, discover) stay fresh for a minute: they change only with the vault's AI settings.
 * Resources are stale at once: notes change any time, and subscriptions/listen says when.
 */
export const CACHE_HINTS: Record<string, { ttlMs: number; cacheScope: "private" | "public" }> = {
  "server/discover": { ttlMs: 60_000, cacheScope: "private" },
  "tools/list": { ttlMs: 60_000, cacheScope: "private" },
  "prompts/list": { ttlMs: 60_000, cacheScope: "private" },
  "resources/templates/list": { ttlMs: 60_000, cacheScope: "private" },
  "resources/list": { ttlMs: 0, cacheScope: "private" },
  "resources/read": { ttlMs: 0, cacheScope: "private" },
};
