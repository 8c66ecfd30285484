import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config/load.ts";
import { IndxError } from "../../../src/core/errors.ts";
import { checkBind } from "../../../src/http/bind-policy.ts";
import { clientView, normalizeAddress, parseForwarded, TrustedProxies } from "../../../src/http/proxy.ts";

const req = (headers: Record<string, string> = {}) => new Request("http://127.0.0.1:8787/v1/search", { headers: { host: "127.0.0.1:8787", ...headers } });
const opts = (trusted: string[] = [], publicUrl: string | null = null, tls = false) => ({ trusted: new TrustedProxies(trusted), publicUrl, tls });

describe("trusted proxies", () => {
  test("addresses and CIDR blocks, v4, v6 and v4-mapped peers", () => {
    const t = new TrustedProxies(["10.0.0.0/8", "192.168.1.5", "fd00::/8"]);
    expect(t.trusts("10.200.3.4")).toBe(true);
    expect(t.trusts("::ffff:10.1.1.1")).toBe(true);
    expect(t.trusts("192.168.1.5")).toBe(true);
    expect(t.trusts("192.168.1.6")).toBe(false);
    expect(t.trusts("fd12::7")).toBe(true);
    expect(t.trusts("2001:db8::1")).toBe(false);
    expect(t.trusts("unknown")).toBe(false);
    expect(new TrustedProxies([]).trusts("127.0.0.1")).toBe(false);
    expect(normalizeAddress("::FFFF:127.0.0.1")).toBe("127.0.0.1");
  });
});

describe("the client behind a request", () => {
  test("an untrusted peer's forwarding headers are ignored: the socket peer is the client", () => {
    const spoof = req({
      "x-forwarded-for": "203.0.113.9",
      "x-forwarded-proto": "https",
      "x-forwarded-host": "evil.example",
      forwarded: "for=203.0.113.9;proto=https",
    });
    expect(clientView(spoof, "198.51.100.7", opts())).toEqual({ address: "198.51.100.7", origin: "http://127.0.0.1:8787" });
    expect(clientView(spoof, "198.51.100.7", opts(["10.0.0.0/8"]))).toEqual({ address: "198.51.100.7", origin: "http://127.0.0.1:8787" });
  });

  test("behind a trusted proxy the first untrusted hop from the right is the client; a forged left hop changes nothing", () => {
    const o = opts(["10.0.0.0/8"]);
    expect(clientView(req({ "x-forwarded-for": "203.0.113.9" }), "10.0.0.2", o).address).toBe("203.0.113.9");
    // The client forged "1.2.3.4"; our proxy appended the real peer.
    expect(clientView(req({ "x-forwarded-for": "1.2.3.4, 203.0.113.9" }), "10.0.0.2", o).address).toBe("203.0.113.9");
    // Two trusted hops in a row are skipped.
    expect(clientView(req({ "x-forwarded-for": "203.0.113.9, 10.0.0.7" }), "10.0.0.2", o).address).toBe("203.0.113.9");
    // A hop that is not an address stops the walk at the proxy that reported it.
    expect(clientView(req({ "x-forwarded-for": "203.0.113.9, unknown" }), "10.0.0.2", o).address).toBe("10.0.0.2");
    // No header: the proxy itself.
    expect(clientView(req(), "10.0.0.2", o).address).toBe("10.0.0.2");
  });

  test("RFC 7239 Forwarded wins over X-Forwarded-*, with quoted IPv6 and ports", () => {
    const o = opts(["127.0.0.1"]);
    const r = req({ forwarded: 'for="[2001:db8:cafe::17]:4711";proto=https;host=notes.example.com', "x-forwarded-for": "9.9.9.9" });
    expect(clientView(r, "127.0.0.1", o)).toEqual({ address: "2001:db8:cafe::17", origin: "https://notes.example.com" });
    expect(clientView(req({ forwarded: "for=192.0.2.60:1234, for=198.51.100.17" }), "127.0.0.1", o).address).toBe("198.51.100.17");
    expect(parseForwarded('for=a;by=b;proto="https"')).toEqual([{ for: "a", proto: "https" }]);
  });

  test("scheme and host come from the nearest proxy and are validated", () => {
    const o = opts(["127.0.0.1"]);
    expect(clientView(req({ "x-forwarded-proto": "https", "x-forwarded-host": "Notes.Example.com" }), "127.0.0.1", o).origin).toBe("https://notes.example.com");
    expect(clientView(req({ "x-forwarded-proto": "gopher", "x-forwarded-host": "a b/c" }), "127.0.0.1", o).origin).toBe("http://127.0.0.1:8787");
  });

  test("server.public_url is the origin whatever the headers say; the address still follows the proxy rules", () => {
    const o = opts(["127.0.0.1"], "https://notes.example.com/");
    const r = req({ "x-forwarded-for": "203.0.113.9", "x-forwarded-host": "evil.example", "x-forwarded-proto": "http" });
    expect(clientView(r, "127.0.0.1", o)).toEqual({ address: "203.0.113.9", origin: "https://notes.example.com" });
    expect(clientView(req(), "127.0.0.1", opts([], null, true)).origin).toBe("https://127.0.0.1:8787");
  });

  test("a malformed Host never throws here (the Host guard refuses it after)", () => {
    expect(clientView(req({ host: "a b" }), "127.0.0.1", opts()).origin).toBe("http://invalid");
  });
});

describe("the bind policy", () => {
  const base = { host: "0.0.0.0", tls: false, trustedProxies: 0, allowInsecure: false };
  test("loopback, TLS or a trusted proxy bind; plain http beyond loopback is refused unless forced", () => {
    expect(checkBind({ ...base, host: "127.0.0.1" })).toBeNull();
    expect(checkBind({ ...base, host: "::1" })).toBeNull();
    expect(checkBind({ ...base, tls: true })).toBeNull();
    expect(checkBind({ ...base, trustedProxies: 1 })).toBeNull();
    let err: unknown;
    try {
      checkBind(base);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(IndxError);
    expect((err as IndxError).details?.reason).toBe("insecure_bind");
    expect((err as IndxError).message).toContain("--insecure-bind");
    expect(checkBind({ ...base, allowInsecure: true })).toContain("forced");
  });
});

describe("deployment configuration keys", () => {
  const load = (env: Record<string, string>) => {
    const d = mkdtempSync(join(tmpdir(), "indx-deploy-config-"));
    try {
      return loadConfig({ env: { XDG_CONFIG_HOME: d, ...env } });
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  };
  const problem = (env: Record<string, string>) => {
    try {
      load(env);
      return null;
    } catch (err) {
      return (err as IndxError).message;
    }
  };

  test("server.public_url takes scheme and host only; http only on loopback", () => {
    for (const ok of [
      "https://notes.example.com",
      "https://notes.example.com/",
      "https://notes.example.com:8443",
      "http://127.0.0.1:8787",
      "http://localhost:8787",
    ])
      expect(problem({ INDX_PUBLIC_URL: ok })).toBeNull();
    for (const bad of [
      "notes.example.com",
      "ftp://notes.example.com",
      "https://notes.example.com/indx",
      "https://notes.example.com/..",
      "https://notes.example.com?x=1",
      "https://notes.example.com#top",
      "https://user:pw@notes.example.com",
      "https://evil.example\\@notes.example.com",
      "https://notes.example.com /",
      "http://notes.example.com",
    ])
      expect(problem({ INDX_PUBLIC_URL: bad })).toContain("server.public_url");
  });

  test("server.trusted_proxies takes addresses and CIDR blocks, nothing else", () => {
    expect(load({ INDX_TRUSTED_PROXIES: "10.0.0.0/8, 127.0.0.1, fd00::/8" }).list("server.trusted_proxies")).toEqual(["10.0.0.0/8", "127.0.0.1", "fd00::/8"]);
    for (const bad of ["proxy.local", "10.0.0.0/33", "fd00::/129", "10.0.0.0/8/1", "*", "10.0.0.0/x"])
      expect(problem({ INDX_TRUSTED_PROXIES: bad })).toContain("server.trusted_proxies");
  });
});
