import { IndxError } from "../core/errors.ts";
import { isLoopback } from "./guard.ts";

export interface BindFacts {
  host: string;
  tls: boolean;
  trustedProxies: number;
  /** server.allow_insecure_bind or `serve --insecure-bind`. */
  allowInsecure: boolean;
}

/** Whether a bind address is reachable only from this machine (what `doctor` asks before the public-URL advice). */
export function bindsLoopbackOnly(host: string): boolean {
  return isLoopback(host);
}

/**
 * Bearer tokens and notes must not cross a network in clear (docs/decisions.md, "Public
 * deployment"): a bind beyond loopback needs TLS here or a trusted proxy in front (which then
 * terminates TLS), unless the owner forces it. Returns the warning to print when forced, else null.
 */
export function checkBind(f: BindFacts): string | null {
  if (isLoopback(f.host) || f.tls || f.trustedProxies > 0) return null;
  if (f.allowInsecure) return `warning: serving plain http on ${f.host} (forced): tokens and notes cross the network unencrypted.`;
  throw new IndxError(
    "validation_failed",
    `Refusing to serve plain http on ${f.host}: tokens and notes would cross the network unencrypted. ` +
      "Serve https with server.tls_cert and server.tls_key, or put a TLS proxy in front and list it in server.trusted_proxies " +
      "(docs/remote-access.md, Deployment); to serve plain http anyway, pass --insecure-bind or set server.allow_insecure_bind = true.",
    { reason: "insecure_bind" },
  );
}
