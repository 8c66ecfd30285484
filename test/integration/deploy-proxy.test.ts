import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { startServer } from "../../src/http/serve.ts";
import { REDIRECT, verifierAndChallenge } from "../support/oauth.ts";
import { makeCert, OPENSSL } from "../support/tls-certs.ts";
import { sandbox } from "../support/vault.ts";

/** The client address behind a proxy, and the bind refusal (docs/remote-access.md, Deployment). */

const quiet = { watch: false, notice: () => {} };

async function statuses(url: string, headersOf: (i: number) => Record<string, string>, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await fetch(url, { headers: headersOf(i) })).status);
  return out;
}

describe("the client address used by the rate limit and the auth throttle", () => {
  // Auth off (allowed on loopback only): the rate limit is keyed on the client address.
  const limits = { "server.auth": false, "server.rate_limit_per_second": 1, "server.rate_limit_burst": 3 };

  test("a spoofed X-Forwarded-For from an untrusted peer is ignored: the limit is keyed on the socket peer", async () => {
    const sb = sandbox({ "Note.md": "# Note\n" });
    const server = await startServer(sb.context(limits), { host: "127.0.0.1", port: 0, ...quiet });
    try {
      const codes = await statuses(`${server.url}/v1/vault/status`, (i) => ({ "x-forwarded-for": `203.0.113.${i}`, forwarded: `for=198.51.100.${i}` }), 6);
      expect(codes.slice(0, 3)).toEqual([200, 200, 200]);
      expect(codes.slice(3)).toEqual([429, 429, 429]);
    } finally {
      await server.stop();
      sb.cleanup();
    }
  });

  test("behind a trusted proxy each forwarded client has its own bucket, and a client forging a left hop gains nothing", async () => {
    const sb = sandbox({ "Note.md": "# Note\n" });
    const server = await startServer(sb.context({ ...limits, "server.trusted_proxies": "127.0.0.1" }), { host: "127.0.0.1", port: 0, ...quiet });
    try {
      const url = `${server.url}/v1/vault/status`;
      expect(await statuses(url, (i) => ({ "x-forwarded-for": `203.0.113.${i}` }), 6)).toEqual([200, 200, 200, 200, 200, 200]);
      // One real client (appended by the proxy) forging a different left hop each time: one bucket.
      const forged = await statuses(url, (i) => ({ "x-forwarded-for": `10.9.9.${i}, 198.51.100.77` }), 5);
      expect(forged.slice(0, 3)).toEqual([200, 200, 200]);
      expect(forged.slice(3)).toEqual([429, 429]);
    } finally {
      await server.stop();
      sb.cleanup();
    }
  });

  test("the failed-token throttle of an untrusted peer cannot be dodged by rotating X-Forwarded-For", async () => {
    const sb = sandbox({ "Note.md": "# Note\n" });
    const server = await startServer(sb.context({ "server.auth_failure_limit": 2, "server.auth_failure_window_seconds": 60 }), {
      host: "127.0.0.1",
      port: 0,
      ...quiet,
    });
    try {
      const admin = loadConfig({ env: sb.env }).str("server.api_key") ?? "";
      const wrong = (i: number) => ({ authorization: "Bearer wrong-token", "x-forwarded-for": `203.0.113.${i}` });
      expect(await statuses(`${server.url}/v1/vault/status`, wrong, 4)).toEqual([401, 401, 429, 429]);
      // The right token still gets in (docs/decisions.md, "A valid token is never throttled").
      expect((await fetch(`${server.url}/v1/vault/status`, { headers: { authorization: `Bearer ${admin}` } })).status).toBe(200);
    } finally {
      await server.stop();
      sb.cleanup();
    }
  });
});

describe("OAuth's issuer behind a proxy", () => {
  const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "vault.example.com" };

  async function metadata(proxies: string): Promise<{ resource: Record<string, unknown>; issuer: Record<string, unknown>; base: string }> {
    const sb = sandbox({ "Note.md": "# Note\n" });
    const server = await startServer(sb.context({ "server.trusted_proxies": proxies }), { host: "127.0.0.1", port: 0, ...quiet });
    try {
      const get = async (path: string) => (await (await fetch(`${server.url}${path}`, { headers: forwarded })).json()) as Record<string, unknown>;
      return { resource: await get("/.well-known/oauth-protected-resource"), issuer: await get("/.well-known/oauth-authorization-server"), base: server.url };
    } finally {
      await server.stop();
      sb.cleanup();
    }
  }

  test("a trusted proxy's X-Forwarded-Proto and -Host become the issuer, the resource and every endpoint", async () => {
    const m = await metadata("127.0.0.1");
    expect(m.resource.resource).toBe("https://vault.example.com");
    expect(m.resource.authorization_servers).toEqual(["https://vault.example.com"]);
    expect(m.issuer.issuer).toBe("https://vault.example.com");
    expect(m.issuer.token_endpoint).toBe("https://vault.example.com/oauth/token");
  });

  test("through the proxy the whole flow works (consent from the public origin), and the token is good only through it", async () => {
    const sb = sandbox({ "Note.md": "# Note\n" });
    const server = await startServer(sb.context({ "server.trusted_proxies": "127.0.0.1", "server.read_workers": 0 }), {
      host: "127.0.0.1",
      port: 0,
      ...quiet,
    });
    const viaProxy = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}${path}`, { redirect: "manual", ...init, headers: { ...forwarded, ...(init.headers as Record<string, string>) } });
    try {
      const admin = loadConfig({ env: sb.env }).str("server.api_key") ?? "";
      const registered = await viaProxy("/oauth/register", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "Proxied", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
      });
      const clientId = ((await registered.json()) as { client_id: string }).client_id;
      const { verifier, challenge } = verifierAndChallenge();
      const q = new URLSearchParams({
        client_id: clientId,
        redirect_uri: REDIRECT,
        response_type: "code",
        code_challenge: challenge,
        code_challenge_method: "S256",
        resource: "https://vault.example.com/mcp",
      });
      const page = await viaProxy(`/oauth/authorize?${q}`);
      expect(page.status).toBe(200);
      expect(page.headers.get("set-cookie")).toContain("; Secure");
      const html = await page.text();
      const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? "";
      // The browser is on https://vault.example.com: its Origin is the public one.
      const decided = await viaProxy("/oauth/authorize", {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie: (page.headers.get("set-cookie") ?? "").split(";")[0] ?? "",
          origin: "https://vault.example.com",
        },
        body: new URLSearchParams({ request_id: field("request_id"), csrf: field("csrf"), decision: "approve", access: "read", owner_proof: admin }),
      });
      expect(decided.status).toBe(303);
      const landed = new URL(decided.headers.get("location") ?? "");
      expect(landed.searchParams.get("iss")).toBe("https://vault.example.com");
      const token = await viaProxy("/oauth/token", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: landed.searchParams.get("code") ?? "",
          client_id: clientId,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
          resource: "https://vault.example.com/mcp",
        }),
      });
      expect(token.status).toBe(200);
      const access = ((await token.json()) as { access_token: string }).access_token;
      const auth = { authorization: `Bearer ${access}` };
      expect((await viaProxy("/v1/vault/status", { headers: auth })).status).toBe(200);
      // Minted for https://vault.example.com: straight to 127.0.0.1 it names another resource.
      expect((await fetch(`${server.url}/v1/vault/status`, { headers: auth })).status).toBe(401);
    } finally {
      await server.stop();
      sb.cleanup();
    }
  });

  test("the same headers from an untrusted peer change nothing: the request's own origin stands", async () => {
    const m = await metadata("10.0.0.1");
    expect(m.resource.resource).toBe(m.base);
    expect(m.issuer.issuer).toBe(m.base);
    expect(m.issuer.authorization_endpoint).toBe(`${m.base}/oauth/authorize`);
  });
});

describe("binding beyond loopback", () => {
  test("plain http on 0.0.0.0 with neither TLS nor a trusted proxy is refused before anything starts, naming the way out", async () => {
    const sb = sandbox({ "Note.md": "# Note\n" });
    try {
      const err = await startServer(sb.context(), { host: "0.0.0.0", port: 0, ...quiet }).then(
        async (s) => {
          await s.stop();
          return null;
        },
        (e: Error & { code?: string; details?: Record<string, unknown> }) => e,
      );
      expect(err?.code).toBe("validation_failed");
      expect(err?.details?.reason).toBe("insecure_bind");
      for (const way of ["server.tls_cert", "server.trusted_proxies", "--insecure-bind", "server.allow_insecure_bind"]) expect(err?.message).toContain(way);
    } finally {
      sb.cleanup();
    }
  });

  test("forced (the flag or the key) it binds, with a warning", async () => {
    const sb = sandbox({ "Note.md": "# Note\n" });
    try {
      for (const [flags, insecureBind] of [[{}, true] as const, [{ "server.allow_insecure_bind": true }, false] as const]) {
        const notices: string[] = [];
        const s = await startServer(sb.context(flags), { host: "0.0.0.0", port: 0, insecureBind, watch: false, notice: (l) => notices.push(l) });
        try {
          expect((await fetch(`http://127.0.0.1:${s.port}/health`)).status).toBe(200);
          expect(notices.join("\n")).toContain("unencrypted");
        } finally {
          await s.stop();
        }
      }
    } finally {
      sb.cleanup();
    }
  });

  test.skipIf(!OPENSSL)("with TLS it binds without being forced", async () => {
    const sb = sandbox({ "Note.md": "# Note\n" });
    try {
      const c = makeCert(sb.dir, "c");
      const s = await startServer(sb.context({ "server.tls_cert": c.cert, "server.tls_key": c.key }), { host: "0.0.0.0", port: 0, ...quiet });
      try {
        expect(s.url).toStartWith("https://");
        const r = await fetch(`https://127.0.0.1:${s.port}/health`, { tls: { ca: await Bun.file(c.cert).text() } });
        expect(r.status).toBe(200);
      } finally {
        await s.stop();
      }
    } finally {
      sb.cleanup();
    }
  });

  test("the CLI refuses with the same message and a non-zero exit", () => {
    const sb = sandbox({ "Note.md": "# Note\n" });
    try {
      const r = Bun.spawnSync(["bun", join(import.meta.dir, "..", "..", "src", "main.ts"), "serve", "--host", "0.0.0.0", "--port", "0"], {
        env: sb.env,
        stderr: "pipe",
        stdout: "pipe",
      });
      expect(r.exitCode).not.toBe(0);
      expect(r.stderr.toString()).toContain("Refusing to serve plain http on 0.0.0.0");
      expect(r.stderr.toString()).toContain("--insecure-bind");
    } finally {
      sb.cleanup();
    }
  });
});
