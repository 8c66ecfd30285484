import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { OAuthError } from "./errors.ts";
import type { OAuthClientRecord } from "./store.ts";

export interface FetchPolicy {
  /**
   * Lets a metadata document come from a private, loopback or link-local address and over plain
   * http. Only tests turn it on, explicitly (INDX_OAUTH_TEST_ALLOW_PRIVATE_FETCH=1); never a config key.
   */
  allowPrivate: boolean;
  timeoutMs: number;
  maxBytes: number;
}

export const DEFAULT_FETCH_POLICY: FetchPolicy = { allowPrivate: false, timeoutMs: 5000, maxBytes: 16 * 1024 };

/** Addresses a client's metadata URL must never make this server call (SSRF: the home network, the cloud metadata service). */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 3],
] as const)
  PRIVATE.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b::", 96],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  PRIVATE.addSubnet(net, bits, "ipv6");

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return PRIVATE.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** A client_id that is a URL: the client names its metadata document (MCP client registration). */
export const isMetadataUrl = (clientId: string): boolean => /^https?:\/\//i.test(clientId);

const CACHE_MS = 5 * 60_000;
const MAX_CACHED = 200;

/**
 * Client ID Metadata Documents: fetches the JSON document a URL client_id names, once per five
 * minutes. Bounded in time and size, no redirects, and never to a private address: every address
 * the name resolves to is checked before the request (docs/decisions.md, OAuth: client metadata documents).
 */
export class ClientMetadataFetcher {
  private readonly cache = new Map<string, { record: OAuthClientRecord; until: number }>();

  constructor(private readonly policy: FetchPolicy) {}

  async resolve(clientId: string): Promise<OAuthClientRecord> {
    const hit = this.cache.get(clientId);
    if (hit && hit.until > Date.now()) return hit.record;
    const record = await this.fetchDocument(clientId);
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value ?? "");
    this.cache.set(clientId, { record, until: Date.now() + CACHE_MS });
    return record;
  }

  private async fetchDocument(clientId: string): Promise<OAuthClientRecord> {
    const url = this.checkUrl(clientId);
    await this.checkHost(url.hostname);
    let res: Response;
    try {
      res = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(this.policy.timeoutMs), headers: { accept: "application/json" } });
    } catch {
      throw invalidClient("The client's metadata document could not be fetched.");
    }
    if (res.status !== 200) throw invalidClient(`The client's metadata document answered HTTP ${res.status}.`);
    const text = await readBounded(res, this.policy.maxBytes);
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      throw invalidClient("The client's metadata document is not JSON.");
    }
    return parseDocument(doc, clientId);
  }

  private checkUrl(clientId: string): URL {
    let url: URL;
    try {
      url = new URL(clientId);
    } catch {
      throw invalidClient("The client_id is not a URL.");
    }
    const schemeOk = url.protocol === "https:" || (this.policy.allowPrivate && url.protocol === "http:");
    if (!schemeOk) throw invalidClient("A URL client_id must be https.");
    if (url.pathname === "/" || url.hash || url.username || url.password || /\/\.\.?(\/|$)/.test(url.pathname))
      throw invalidClient("A URL client_id needs a path and no fragment, credentials or dot segments.");
    if (url.href !== clientId) throw invalidClient("A URL client_id must be in its normal form.");
    return url;
  }

  private async checkHost(hostname: string): Promise<void> {
    if (this.policy.allowPrivate) return;
    const bare = hostname.replace(/^\[|\]$/g, "");
    let addresses: string[];
    try {
      addresses = isIP(bare) ? [bare] : (await lookup(bare, { all: true })).map((a) => a.address);
    } catch {
      throw invalidClient("The client's metadata host does not resolve.");
    }
    if (addresses.length === 0 || addresses.some(isPrivateAddress)) throw invalidClient("The client's metadata host is a private address.");
  }
}

async function readBounded(res: Response, maxBytes: number): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw invalidClient("The client's metadata document is too large.");
  const reader = res.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw invalidClient("The client's metadata document is too large.");
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseDocument(doc: unknown, clientId: string): OAuthClientRecord {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw invalidClient("The client's metadata document is not a JSON object.");
  const d = doc as Record<string, unknown>;
  if (d.client_id !== clientId) throw invalidClient("The metadata document's client_id is not its own URL.");
  const redirects = d.redirect_uris;
  if (!Array.isArray(redirects) || redirects.length === 0 || redirects.length > 20 || !redirects.every((r) => typeof r === "string" && validRedirectUri(r)))
    throw invalidClient("The metadata document needs redirect_uris: 1–20 absolute URLs without fragments.");
  const method = d.token_endpoint_auth_method;
  if (method !== undefined && method !== "none") throw invalidClient("indx serves public clients only (token_endpoint_auth_method none).");
  const name = typeof d.client_name === "string" && d.client_name.trim() ? d.client_name.trim().slice(0, 100) : new URL(clientId).host;
  return { client_id: clientId, client_name: name, redirect_uris: redirects as string[], created_at: new Date().toISOString() };
}

/** A redirect URI indx will send a code to: absolute, no fragment; https, http to loopback, or a native app's private scheme; never javascript: or data:. */
export function validRedirectUri(uri: string): boolean {
  if (uri.length > 2000) return false;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.hash || uri.includes("#")) return false;
  if (["javascript:", "data:", "file:", "vbscript:", "blob:", "about:"].includes(url.protocol)) return false;
  // Plain http only to this machine's loopback (OAuth 2.1 §2.3.1); a private scheme is reverse-DNS (com.example.app:).
  if (url.protocol === "http:") return ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
  return url.protocol === "https:" || /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/.test(url.protocol);
}

const invalidClient = (message: string) => new OAuthError("invalid_client", message, 400);
