import { ALL_SCOPES } from "../auth/tokens.ts";

/** Where each OAuth endpoint lives under the server's base URL. */
export const OAUTH_PATHS = {
  protectedResource: "/.well-known/oauth-protected-resource",
  authorizationServer: "/.well-known/oauth-authorization-server",
  authorize: "/oauth/authorize",
  token: "/oauth/token",
  register: "/oauth/register",
  revoke: "/oauth/revoke",
} as const;

/** A named vault's MCP endpoint under the server's base URL: its resource (RFC 8707) and the suffix of its RFC 9728 metadata. */
export const vaultResourcePath = (vault: string) => `/mcp/${vault}`;

/**
 * The resource a client names (RFC 8707) in the one form indx stores: the base URL for the
 * default vault (the MCP endpoint and the REST root name the same server), `<base>/mcp/<name>`
 * for a named vault (`/v1/vaults/<name>` names it too; docs/decisions.md, "OAuth for named
 * vaults"). Scheme and host case do not matter. Anything else (another server, an unknown vault,
 * a query, a fragment) is not a resource of this server: null.
 */
export function canonicalResource(named: string, base: string, isVault: (name: string) => boolean = () => false): string | null {
  let url: URL;
  try {
    url = new URL(named);
  } catch {
    return null;
  }
  if (url.search || url.hash || url.username || url.password) return null;
  const mine = new URL(base);
  if (url.origin !== mine.origin) return null;
  const root = mine.pathname.replace(/\/+$/, "");
  const path = url.pathname.replace(/\/+$/, "");
  if ([root, `${root}/mcp`, `${root}/v1`].includes(path)) return base;
  const rest = path.startsWith(`${root}/`) ? path.slice(root.length) : null;
  const vault = rest === null ? undefined : (/^\/mcp\/([^/]+)$/.exec(rest)?.[1] ?? /^\/v1\/vaults\/([^/]+)$/.exec(rest)?.[1]);
  return vault !== undefined && isVault(vault) ? `${base}${vaultResourcePath(vault)}` : null;
}

/** The named vault a stored resource is for, or null for the default vault's (the base itself). */
export function vaultOfResource(resource: string, base: string): string | null {
  const prefix = `${base}/mcp/`;
  return resource.startsWith(prefix) ? resource.slice(prefix.length) : null;
}

/** RFC 9728: what this protected resource is and who issues its tokens; a named vault is a resource of its own. */
export function protectedResourceMetadata(base: string, vault: string | null = null): Record<string, unknown> {
  return {
    resource: vault === null ? base : `${base}${vaultResourcePath(vault)}`,
    authorization_servers: [base],
    // What a client needs for everyday work; vault:admin is asked for only on purpose (MCP: scope minimisation).
    scopes_supported: ["vault:read", "vault:write"],
    bearer_methods_supported: ["header"],
    resource_name: vault === null ? "indx" : `indx: ${vault}`,
    resource_documentation: "https://github.com/indx/indx/blob/main/docs/remote-access.md",
  };
}

/** RFC 8414 (with RFC 9207's iss flag and the Client ID Metadata Document flag MCP clients look for). */
export function authorizationServerMetadata(base: string): Record<string, unknown> {
  return {
    issuer: base,
    authorization_endpoint: `${base}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${base}${OAUTH_PATHS.token}`,
    registration_endpoint: `${base}${OAUTH_PATHS.register}`,
    revocation_endpoint: `${base}${OAUTH_PATHS.revoke}`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    scopes_supported: [...ALL_SCOPES],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    service_documentation: "https://github.com/indx/indx/blob/main/docs/remote-access.md",
  };
}

/**
 * The WWW-Authenticate challenge on /mcp and /v1: a 401 says where to start the OAuth dance
 * (RFC 9728 §5.1) and which scopes to ask; a 403 for want of a scope names the scope needed
 * (RFC 6750 §3.1, MCP scope challenges).
 */
export function bearerChallenge(
  base: string,
  error?: "invalid_token" | "insufficient_scope",
  scope = "vault:read vault:write",
  vault: string | null = null,
): string {
  // A named vault's metadata is path-suffixed with its resource's path (RFC 9728 §3.1).
  const suffix = vault === null ? "" : vaultResourcePath(vault);
  const parts = ['Bearer realm="indx"', `resource_metadata="${base}${OAUTH_PATHS.protectedResource}${suffix}"`, `scope="${scope}"`];
  if (error) parts.push(`error="${error}"`);
  return parts.join(", ");
}
