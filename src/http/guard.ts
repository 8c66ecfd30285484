import type { TokenStore } from "../auth/tokens.ts";
import { IndxError } from "../core/errors.ts";
import type { ProtectedResource } from "../oauth/server.ts";
import type { Scope } from "../ops/define.ts";
import type { GrantSpec } from "../ops/grant.ts";

export interface GuardOptions {
  host: string;
  allowedHosts: string[];
  corsOrigins: string[];
  auth: boolean;
  adminKey: () => string | null;
  tokens: TokenStore;
  /** The OAuth authorization server as this vault's protected resource, when on: its access tokens pass the same guard as bearer tokens. */
  oauth?: ProtectedResource | null;
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "::1", "[::1]"];

export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host.startsWith("127.");
}

function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1);
  const colon = hostHeader.lastIndexOf(":");
  return (colon >= 0 ? hostHeader.slice(0, colon) : hostHeader).toLowerCase();
}

/** A host name or an IP literal, with an optional port: all a Host header may hold. */
const HOST_SYNTAX = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::\d{1,5})?$/;

/**
 * DNS-rebinding guard: a page on evil.example that resolves to 127.0.0.1 still sends
 * Host: evil.example. Only the bound name, loopback names and configured hosts get through.
 * A wildcard bind (0.0.0.0) accepts any Host unless allowed_hosts narrows it. A Host that is
 * not a host name, or several of them (joined by commas), is a malformed request.
 */
export function checkHost(request: Request, o: GuardOptions): void {
  const header = request.headers.get("host");
  if (!header) throw new IndxError("forbidden", "Missing Host header.");
  if (header.includes(",")) throw new IndxError("validation_failed", "Send exactly one Host header.", { reason: "host" });
  if (!HOST_SYNTAX.test(header)) throw new IndxError("validation_failed", "The Host header is malformed.", { reason: "host" });
  const name = hostnameOf(header);
  const wildcard = o.host === "0.0.0.0" || o.host === "::";
  if (wildcard && o.allowedHosts.length === 0) return;
  const ok = [o.host.toLowerCase(), ...(isLoopback(o.host) || wildcard ? LOOPBACK_NAMES : []), ...o.allowedHosts.map((h) => h.toLowerCase())];
  if (!ok.includes(name)) throw new IndxError("forbidden", "Host not allowed.", { reason: "host" });
}

/** Browsers send Origin on cross-site requests: refuse every origin that is not listed. */
export function checkOrigin(request: Request, o: GuardOptions): string | null {
  const origin = request.headers.get("origin");
  if (!origin) return null;
  if (o.corsOrigins.includes(origin)) return origin;
  const host = request.headers.get("host");
  try {
    if (host && new URL(origin).host === host) return null; // same origin (the /docs page)
  } catch {
    // malformed Origin: refused below
  }
  throw new IndxError("forbidden", "Origin not allowed.", { reason: "origin" });
}

export function corsHeaders(origin: string): Record<string, string> {
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS",
    "access-control-allow-headers": "authorization, content-type, if-match, idempotency-key, mcp-session-id, mcp-protocol-version, last-event-id",
    "access-control-expose-headers": "etag, mcp-session-id, x-indx-idempotent-replay, www-authenticate",
    "access-control-max-age": "600",
    vary: "origin",
  };
}

export interface Principal {
  /** Whose requests these are: a token id, "admin", or "anonymous" when auth is off. */
  id: string;
  scopes: Set<Scope>;
  /** The token's folder grant (docs/permissions.md); null: the whole vault. */
  grant: GrantSpec | null;
}

/**
 * Bearer token → who and which scopes. Tokens are never accepted in the query string
 * (docs/contracts.md, Privacy and safety).
 * A wrong token (a guess, which the failure throttle counts) is told apart from a missing one.
 */
export function authenticate(request: Request, o: GuardOptions): Principal {
  if (!o.auth) return { id: "anonymous", scopes: new Set(["vault:read", "vault:write", "vault:admin"]), grant: null };
  const header = request.headers.get("authorization") ?? "";
  const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
  if (!token) throw new IndxError("unauthorized", "Missing bearer token: send Authorization: Bearer <token>.");
  const hit = o.tokens.verify(token, o.adminKey()) ?? o.oauth?.verifyAccess(token, request) ?? null;
  if (!hit) throw new IndxError("unauthorized", "Invalid bearer token.", { reason: "invalid_token" });
  // Bearer tokens and OAuth grants carry folders the same way (docs/permissions.md).
  return { id: hit.id, scopes: new Set(hit.scopes), grant: hit.grant };
}
