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
  test("after too many wrong tokens an address gets 429 even with a right one, until the window passes", async () => {
    await Bun.sleep(2_100); // a fresh window and a refilled bucket
    for (const r of await statuses(3, "/v1/vault/status", bearer("indx_guess"))) expect(r.status).toBe(401);
    const refused = await fetch(`${server.url}/v1/vault/status`, { headers: bearer(reader) });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    // A missing token guesses nothing: it is a plain 401 and never counted.
    await Bun.sleep(2_100);
    for (const r of await statuses(5, "/v1/vault/status")) expect(r.status).toBe(401);
    expect((await fetch(`${server.url}/v1/vault/status`, { headers: bearer(reader) })).status).toBe(200);
  }, 10_000);
});
