import { BlockList, isIP } from "node:net";

/**
 * Who sent a request and where they think they are talking to, once the reverse proxies in front
 * are accounted for (docs/decisions.md, "Public deployment"): the rate limits and the failed-auth
 * throttle key on `address`; OAuth metadata and redirects are built on `origin`.
 */
export interface ClientView {
  /** The client's address: the socket peer, or what a trusted proxy says the client was. */
  address: string;
  /** The scheme and host the client used: server.public_url when set, else the request's own (as a trusted proxy reports it). */
  origin: string;
}

/** A Host value: a host name or an IP literal with an optional port (the same syntax checkHost accepts). */
const HOST_SYNTAX = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::\d{1,5})?$/;

/** Headers larger than this are not parsed (a proxy chain of a few hops is well under it). */
const MAX_FORWARDED_CHARS = 4096;

/** `::ffff:10.0.0.1` (an IPv4 peer of a dual-stack socket) is 10.0.0.1. */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped?.[1] ?? address.toLowerCase();
}

/** server.trusted_proxies: addresses and CIDR blocks (validated when the config loads: src/config/keys.ts). */
export class TrustedProxies {
  private readonly list = new BlockList();
  readonly size: number;

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [address = "", prefix] = entry.split("/");
      const family = isIP(address) === 6 ? "ipv6" : "ipv4";
      if (prefix === undefined) this.list.addAddress(normalizeAddress(address), family);
      else this.list.addSubnet(normalizeAddress(address), Number(prefix), family);
    }
    this.size = entries.length;
  }

  trusts(address: string): boolean {
    if (this.size === 0) return false;
    const a = normalizeAddress(address);
    const family = isIP(a);
    return family !== 0 && this.list.check(a, family === 6 ? "ipv6" : "ipv4");
  }
}

export interface ProxyOptions {
  trusted: TrustedProxies;
  /** server.public_url, when set: the origin, whatever the headers say. */
  publicUrl: string | null;
  /** Whether this listener speaks TLS itself (the scheme when no trusted proxy says otherwise). */
  tls: boolean;
}

/**
 * The client behind `peer` (the socket's address). Forwarding headers are believed only when the
 * peer is a trusted proxy; the hop chain is then walked from the right (the hop nearest to us)
 * past every trusted proxy, and the first untrusted hop is the client. A client that forges
 * X-Forwarded-For only adds hops to the left of the ones our proxies append, so it cannot pick
 * its own address. A hop that is not an address (`unknown`, an obfuscated name) stops the walk at
 * the proxy that reported it.
 */
export function clientView(request: Request, peer: string, o: ProxyOptions): ClientView {
  const socket = normalizeAddress(peer);
  const own = { address: socket, origin: o.publicUrl ? originOf(o.publicUrl) : ownOrigin(request, o.tls) };
  if (!o.trusted.trusts(socket)) return own;
  const forwarded = parseForwarded(request.headers.get("forwarded"));
  const hops = forwarded ? forwarded.map((e) => e.for ?? "") : splitList(request.headers.get("x-forwarded-for"));
  let address = socket;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hopAddress(hops[i] ?? "");
    if (hop === null) break;
    address = hop;
    if (!o.trusted.trusts(hop)) break;
  }
  if (o.publicUrl) return { address, origin: own.origin };
  // The scheme and host our nearest proxy saw (the last element it appended).
  const last = forwarded?.at(-1);
  const proto = (last?.proto ?? splitList(request.headers.get("x-forwarded-proto")).at(-1))?.toLowerCase();
  const host = last?.host ?? splitList(request.headers.get("x-forwarded-host")).at(-1);
  const ownUrl = new URL(own.origin);
  const scheme = proto === "http" || proto === "https" ? proto : ownUrl.protocol.slice(0, -1);
  const authority = host && HOST_SYNTAX.test(host) ? host.toLowerCase() : ownUrl.host;
  return { address, origin: `${scheme}://${authority}` };
}

/** The origin of a validated server.public_url (scheme and host, no trailing slash). */
export function originOf(publicUrl: string): string {
  return new URL(publicUrl).origin;
}

/** The Host the client sent; a malformed one (refused by the Host guard right after) stands as `invalid`. */
function ownOrigin(request: Request, tls: boolean): string {
  const host = request.headers.get("host");
  return `${tls ? "https" : "http"}://${host && HOST_SYNTAX.test(host) ? host.toLowerCase() : "invalid"}`;
}

function splitList(header: string | null): string[] {
  if (!header || header.length > MAX_FORWARDED_CHARS) return [];
  return header
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

interface ForwardedElement {
  for?: string;
  proto?: string;
  host?: string;
}

/**
 * RFC 7239 `Forwarded`: comma-separated elements of `key=value` pairs joined by `;`, values maybe
 * quoted. Null when absent, too long or malformed (then X-Forwarded-For is not consulted either:
 * a proxy that sends Forwarded means it).
 */
export function parseForwarded(header: string | null): ForwardedElement[] | null {
  if (!header) return null;
  if (header.length > MAX_FORWARDED_CHARS) return [];
  const out: ForwardedElement[] = [];
  for (const element of header.split(",")) {
    const e: ForwardedElement = {};
    for (const pair of element.split(";")) {
      const eq = pair.indexOf("=");
      if (eq < 0) continue;
      const key = pair.slice(0, eq).trim().toLowerCase();
      const value = pair
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, "$1");
      if (key === "for" || key === "proto" || key === "host") e[key] = value;
    }
    out.push(e);
  }
  return out;
}

/** A hop's address without port or brackets (`"[2001:db8::1]:4711"`, `192.0.2.60:80`), or null when it is not one. */
function hopAddress(hop: string): string | null {
  let h = hop.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(h);
  if (bracketed?.[1]) h = bracketed[1];
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(h)) h = h.slice(0, h.lastIndexOf(":"));
  return isIP(h) ? normalizeAddress(h) : null;
}
