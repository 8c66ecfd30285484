import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { TokenStore } from "../../src/auth/tokens.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * Several vaults in one server (docs/decisions.md, "Several vaults in one server"): each named
 * vault answers under /v1/vaults/{name}/… with its own tokens; another vault's token and an
 * unknown name get the same not_found; one vault's folder gone leaves the others answering.
 */
let sb: Sandbox;
let server: RunningServer;
const vaultA = () => join(sb.dir, "A");
const vaultB = () => join(sb.dir, "B");
let tokenA: string;
let tokenB: string;

beforeAll(async () => {
  sb = sandbox({ "Default.md": "# Default\n" });
  for (const [dir, note] of [
    [vaultA(), "# Alpha\n\nA walrus in A.\n"],
    [vaultB(), "# Beta\n\nA narwhal in B.\n"],
  ] as const) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "Note.md"), note);
  }
  const path = loadConfig({ env: sb.env }).path;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(
    path,
    `[vaults.a]\npath = ${JSON.stringify(vaultA())}\ndata_dir = ${JSON.stringify(join(sb.dir, "dataA"))}\n\n[vaults.b]\npath = ${JSON.stringify(vaultB())}\ndata_dir = ${JSON.stringify(join(sb.dir, "dataB"))}\n`,
  );
  mkdirSync(join(sb.dir, "dataA"), { recursive: true });
  mkdirSync(join(sb.dir, "dataB"), { recursive: true });
  tokenA = new TokenStore(join(sb.dir, "dataA")).create("agent-a", ["vault:read"]).token;
  tokenB = new TokenStore(join(sb.dir, "dataB")).create("agent-b", ["vault:read"]).token;
  server = await startServer(sb.context({ "index.debounce_ms": 20 }), { host: "127.0.0.1", port: 0, notice: () => {} });
});

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

async function get(path: string, token: string): Promise<{ status: number; body: any }> {
  const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: await res.json() };
}

test("a vault's own token reads its notes; another vault's token and an unknown name get not_found", async () => {
  const own = await get("/v1/vaults/b/notes/Note.md", tokenB);
  expect(own.status).toBe(200);
  expect(JSON.stringify(own.body)).toContain("narwhal");
  const other = await get("/v1/vaults/b/notes/Note.md", tokenA);
  expect(other.status).toBe(404);
  expect(other.body.error.code).toBe("not_found");
  expect(JSON.stringify(other.body)).not.toContain("narwhal");
  const unknown = await get("/v1/vaults/nope/notes/Note.md", tokenA);
  expect(unknown.status).toBe(404);
  expect(unknown.body.error.code).toBe("not_found");
  // The default vault knows neither token.
  expect((await get("/v1/notes/Default.md", tokenA)).status).toBe(401);
});

test("vault B's folder deleted while serving: B answers vault_missing, A keeps answering", async () => {
  expect((await get("/v1/vaults/a/notes/Note.md", tokenA)).status).toBe(200);
  expect((await get("/v1/vaults/b/notes/Note.md", tokenB)).status).toBe(200);
  rmSync(vaultB(), { recursive: true, force: true });
  const gone = await get("/v1/vaults/b/notes/Note.md", tokenB);
  expect(gone.status).toBe(503);
  expect(gone.body.error.code).toBe("vault_missing");
  expect(JSON.stringify(gone.body)).not.toContain(sb.dir);
  const a = await get("/v1/vaults/a/notes/Note.md", tokenA);
  expect(a.status).toBe(200);
  expect(JSON.stringify(a.body)).toContain("walrus");
});
