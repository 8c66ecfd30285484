import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TokenStore } from "../../src/auth/tokens.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

let sb: Sandbox;
let server: RunningServer;
let admin: string;
let reader: string;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  sb = sandbox({ "Note.md": "# Note\n\nquasar\n" });
  const ctx = sb.context({
    "server.rate_limit_per_second": 2,
    "server.rate_limit_burst": 5,
    "server.auth_failure_limit": 3,
    "server.auth_failure_window_seconds": 2,
  });
  server = await startServer(ctx, { host: "127.0.0.1", port: 0, watch: false, notice: () => {} });
  admin = loadConfig({ env: sb.env }).str("server.api_key")!;
  reader = new TokenStore(sb.dataDir).create("reader", ["vault:read"]).token;
});

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

async function statuses(n: number, path: string, headers: Record<string, string> = {}): Promise<Response[]> {
  const out: Response[] = [];
  for (let i = 0; i < n; i++) out.push(await fetch(server.url + path, { headers }));
  return out;
}

describe("rate limiting per token", () => {
  test("a token over its burst gets 429 rate_limited with Retry-After; other tokens and /health are not affected", async () => {
    const burst = await statuses(8, "/v1/search?q=quasar", bearer(admin));
    const codes = burst.map((r) => r.status);
    expect(codes.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(codes).toContain(429);
    const limited = burst.find((r) => r.status === 429)!;
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    // Another token has its own bucket; /health is never limited.
    expect((await fetch(`${server.url}/v1/search?q=quasar`, { headers: bearer(reader) })).status).toBe(200);
    for (const r of await statuses(20, "/health")) expect(r.status).toBe(200);
    // The bucket refills.
    await Bun.sleep(1_100);
    expect((await fetch(`${server.url}/v1/search?q=quasar`, { headers: bearer(admin) })).status).toBe(200);
  });

  test("0 turns the limit off", async () => {
    const open = sandbox({ "Note.md": "# Note\n" });
    const s = await startServer(open.context({ "server.rate_limit_per_second": 0, "server.rate_limit_burst": 1 }), {
      host: "127.0.0.1",
      port: 0,
      watch: false,
      notice: () => {},
    });
    try {
      const key = loadConfig({ env: open.env }).str("server.api_key")!;
      for (let i = 0; i < 30; i++) expect((await fetch(`${s.url}/v1/vault/status`, { headers: bearer(key) })).status).toBe(200);
    } finally {
      await s.stop();
      open.cleanup();
    }
  });

  test("limits are on by default", () => {
    const cfg = loadConfig({ env: sb.env });
    expect(cfg.int("server.rate_limit_per_second")).toBeGreaterThan(0);
    expect(cfg.int("server.rate_limit_burst")).toBeGreaterThan(0);
    expect(cfg.int("server.auth_failure_limit")).toBeGreaterThan(0);
  });
});

describe("throttling failed authentication", () => {
  test("a wrong token sent again and again gets 429 after the limit; the right tokens from the same address still get 200", async () => {
    await Bun.sleep(2_100); // a fresh window and a refilled bucket
    for (const r of await statuses(3, "/v1/vault/status", bearer("indx_guess"))) expect(r.status).toBe(401);
    const refused = await fetch(`${server.url}/v1/vault/status`, { headers: bearer("indx_guess") });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    // Another client's stale token from the same address is told it is wrong, not throttled.
    expect((await fetch(`${server.url}/v1/vault/status`, { headers: bearer("indx_stale") })).status).toBe(401);
    expect((await fetch(`${server.url}/v1/vault/status`, { headers: bearer(reader) })).status).toBe(200);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    // A missing token guesses nothing: it is a plain 401 and never counted.
    await Bun.sleep(2_100);
    for (const r of await statuses(5, "/v1/vault/status")) expect(r.status).toBe(401);
    expect((await fetch(`${server.url}/v1/vault/status`, { headers: bearer(reader) })).status).toBe(200);
  }, 10_000);

  test("20 different wrong tokens from one address, then the admin token: 200 on /v1 and on /mcp; the guesses end in 429", async () => {
    await Bun.sleep(2_100);
    const guesses: number[] = [];
    for (let i = 0; i < 20; i++) guesses.push((await fetch(`${server.url}/v1/vault/status`, { headers: bearer(`indx_guess${i}`) })).status);
    // Each guess is a new token: the address's own budget (5× the limit) ends them.
    expect(guesses.slice(0, 15).every((c) => c === 401)).toBe(true);
    expect(guesses.slice(15)).toEqual([429, 429, 429, 429, 429]);
    expect((await fetch(`${server.url}/v1/vault/status`, { headers: bearer(admin) })).status).toBe(200);
    const mcp = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { ...bearer(admin), "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } },
      }),
    });
    expect(mcp.status).toBe(200);
  }, 10_000);
});
