import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ClientMetadataFetcher, DEFAULT_FETCH_POLICY, isPrivateAddress, validRedirectUri } from "../../../src/oauth/client-metadata.ts";
import { OAuthError } from "../../../src/oauth/errors.ts";

/** Client ID Metadata Documents: a real HTTP server on 127.0.0.1 plays the client's host. */
let host: ReturnType<typeof Bun.serve>;
let origin: string;
let slowRelease: () => void = () => {};

beforeAll(() => {
  host = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const self = `${origin}${url.pathname}`;
      switch (url.pathname) {
        case "/good.json":
          return Response.json({ client_id: self, client_name: "Good client", redirect_uris: ["http://127.0.0.1:3000/cb"] });
        case "/other-id.json":
          return Response.json({ client_id: `${origin}/good.json`, client_name: "Liar", redirect_uris: ["http://127.0.0.1:3000/cb"] });
        case "/huge.json":
          return new Response(JSON.stringify({ client_id: self, redirect_uris: ["http://127.0.0.1:3000/cb"], pad: "x".repeat(100_000) }));
        case "/redirect.json":
          return Response.redirect(`${origin}/good.json`, 302);
        case "/js-redirect.json":
          return Response.json({ client_id: self, redirect_uris: ["javascript:alert(1)"] });
        case "/secret.json":
          return Response.json({ client_id: self, redirect_uris: ["http://127.0.0.1:3000/cb"], token_endpoint_auth_method: "client_secret_basic" });
        case "/slow.json":
          await new Promise<void>((r) => {
            slowRelease = r;
            setTimeout(r, 5000);
          });
          return Response.json({});
        default:
          return new Response("no", { status: 404 });
      }
    },
  });
  origin = `http://127.0.0.1:${host.port}`;
});

afterAll(() => {
  slowRelease();
  host.stop(true);
});

const testMode = new ClientMetadataFetcher({ ...DEFAULT_FETCH_POLICY, allowPrivate: true, timeoutMs: 300 });

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(OAuthError);
    return (err as OAuthError).description;
  }
  throw new Error("expected a refusal");
}

describe("fetching a client's metadata document", () => {
  test("a good document gives the client's name and redirect URIs", async () => {
    const c = await testMode.resolve(`${origin}/good.json`);
    expect(c.client_name).toBe("Good client");
    expect(c.redirect_uris).toEqual(["http://127.0.0.1:3000/cb"]);
  });

  test("outside test mode, a loopback or private host is never fetched (SSRF), nor plain http", async () => {
    const strict = new ClientMetadataFetcher(DEFAULT_FETCH_POLICY);
    expect(await refusal(strict.resolve(`${origin}/good.json`))).toContain("https");
    for (const url of [
      "https://127.0.0.1/c.json",
      "https://10.1.2.3/c.json",
      "https://169.254.169.254/latest",
      "https://[::1]/c.json",
      "https://localhost/c.json",
    ])
      expect(await refusal(strict.resolve(url))).toContain("private address");
  });

  test("a document naming another client_id, too large, redirected, slow, with unsafe redirect URIs or a secret is refused", async () => {
    expect(await refusal(testMode.resolve(`${origin}/other-id.json`))).toContain("not its own URL");
    expect(await refusal(testMode.resolve(`${origin}/huge.json`))).toContain("too large");
    expect(await refusal(testMode.resolve(`${origin}/redirect.json`))).toContain("HTTP 302");
    expect(await refusal(testMode.resolve(`${origin}/slow.json`))).toContain("could not be fetched");
    expect(await refusal(testMode.resolve(`${origin}/js-redirect.json`))).toContain("redirect_uris");
    expect(await refusal(testMode.resolve(`${origin}/secret.json`))).toContain("public clients");
  });

  test("a client_id URL without a path, with a fragment or not in normal form is refused before any request", async () => {
    for (const id of [`${origin}/`, `${origin}/good.json#x`, `${origin}/a/../good.json`, "https://user:pw@example.com/c.json"])
      expect(await refusal(testMode.resolve(id))).toContain("client_id");
  });
});

test("private addresses: loopback, RFC 1918, link-local, CGNAT, ULA, IPv4-mapped; public ones pass", () => {
  for (const a of [
    "127.0.0.1",
    "10.0.0.1",
    "172.16.5.4",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "::1",
    "fd00::1",
    "fe80::1",
    "::ffff:10.0.0.1",
    "0.0.0.0",
    "not-an-ip",
  ])
    expect(isPrivateAddress(a)).toBe(true);
  for (const a of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111"]) expect(isPrivateAddress(a)).toBe(false);
});

test("redirect URIs: https, http only to loopback, an app's reverse-DNS scheme; never javascript:, data: or a fragment", () => {
  for (const u of ["https://claude.ai/api/mcp/auth_callback", "http://127.0.0.1:33418/cb", "http://localhost/cb", "com.example.app:/oauth"])
    expect(validRedirectUri(u)).toBe(true);
  for (const u of ["javascript:alert(1)", "data:text/html,x", "http://evil.example/cb", "https://a.example/cb#frag", "relative/cb", "myapp:/cb"])
    expect(validRedirectUri(u)).toBe(false);
});
