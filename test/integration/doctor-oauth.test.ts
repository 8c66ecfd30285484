import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { startServer } from "../../src/http/serve.ts";
import { authorizeCode, exchange } from "../support/oauth.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** `indx doctor` reports OAuth (docs/remote-access.md): on or off, the public URL a server beyond loopback needs, live grants. */
const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");

let sb: Sandbox;

function oauthCheck(env: Record<string, string> = {}): { status: string; message: string; fix?: string } | undefined {
  const p = Bun.spawnSync(["bun", MAIN, "doctor", "--json"], { env: { ...sb.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const report = JSON.parse(p.stdout.toString()) as { checks: { name: string; status: string; message: string; fix?: string }[] };
  return report.checks.find((c) => c.name === "oauth");
}

beforeAll(async () => {
  sb = sandbox({ "Note.md": "# Note\n" });
  // One live grant, made the honest way.
  const server = await startServer(sb.context({ "server.read_workers": 0 }), { host: "127.0.0.1", port: 0, watch: false, notice: () => {} });
  try {
    const admin = loadConfig({ env: sb.env }).str("server.api_key") ?? "";
    expect((await exchange(server.url, await authorizeCode(server.url, admin))).status).toBe(200);
  } finally {
    await server.stop();
  }
});

afterAll(() => sb?.cleanup());

describe("indx doctor on OAuth", () => {
  test("on loopback: on, with the number of live grants", () => {
    expect(oauthCheck()).toMatchObject({ status: "ok", message: expect.stringContaining("1 live grant (") });
  });

  test("off when server.oauth or server.auth is off", () => {
    expect(oauthCheck({ INDX_OAUTH: "false" })).toMatchObject({ status: "ok", message: expect.stringMatching(/^off/) });
    expect(oauthCheck({ INDX_AUTH: "false" })).toMatchObject({ status: "ok", message: expect.stringMatching(/^off/) });
  });

  test("beyond loopback without server.public_url: a warning naming the fix; with it or a trusted proxy, ok", () => {
    const beyond = { INDX_HOST: "0.0.0.0", INDX_ALLOW_INSECURE_BIND: "true" };
    const bare = oauthCheck(beyond);
    expect(bare?.status).toBe("warn");
    expect(bare?.fix).toContain("server.public_url");
    expect(oauthCheck({ ...beyond, INDX_PUBLIC_URL: "https://vault.example.com" })).toMatchObject({
      status: "ok",
      message: expect.stringContaining("https://vault.example.com"),
    });
    expect(oauthCheck({ ...beyond, INDX_TRUSTED_PROXIES: "10.0.0.1" })?.status).toBe("ok");
  });
});
