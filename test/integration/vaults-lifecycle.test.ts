import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TokenStore } from "../../src/auth/tokens.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { until } from "../support/listen.ts";
import { listenSse, mcpCall, writeVaultTables } from "../support/named-vaults.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * Named vaults over a server's life (docs/decisions.md, "vault_list", "A vault leaves the config
 * file", "One App per vault"): vault_list on every surface, a table removed or moved while serving,
 * and `serve --vault work` beside a [vaults.work] table served by one App.
 */
const MAIN = `${import.meta.dir}/../../src/main.ts`;
let sb: Sandbox;
let server: RunningServer;
let admin: string;
let tokenA: string;
const dir = (name: string) => join(sb.dir, name);

beforeAll(async () => {
  sb = sandbox({ "Default.md": "# Default\n" });
  for (const [name, notes] of [
    ["A", 2],
    ["A2", 3],
    ["W", 1],
  ] as const) {
    mkdirSync(dir(name), { recursive: true });
    for (let i = 0; i < notes; i++) writeFileSync(join(dir(name), `N${i}.md`), `# ${name} ${i}\n`);
  }
  mkdirSync(dir("dataA"), { recursive: true });
  writeVaultTables(sb, {
    a: { path: dir("A"), data_dir: dir("dataA") },
    gone: { path: dir("never-made"), data_dir: dir("dataGone") },
    // The default vault's own folder under a name: listed once, as the default.
    home: { path: sb.vault, data_dir: sb.dataDir },
  });
  tokenA = new TokenStore(dir("dataA")).create("agent-a", ["vault:read", "vault:write", "vault:admin"]).token;
  server = await startServer(sb.context({ "index.debounce_ms": 20 }), { host: "127.0.0.1", port: 0, notice: () => {} });
  admin = loadConfig({ env: sb.env }).str("server.api_key") ?? "";
});

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

async function get(path: string, token: string): Promise<{ status: number; body: any }> {
  const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: await res.json() };
}

test("vault_list over REST: every vault with its state and note count for the admin, never a folder", async () => {
  expect((await get("/v1/vaults/a/notes/N0.md", tokenA)).status).toBe(200);
  const res = await get("/v1/vaults", admin);
  expect(res.status).toBe(200);
  expect(res.body.data.vaults).toEqual([
    { name: "home", default: true, state: "open", notes: 1 },
    { name: "a", default: false, state: "open", notes: 2 },
    { name: "gone", default: false, state: "missing" },
  ]);
  expect(JSON.stringify(res.body)).not.toContain(sb.dir);
  // On a named vault's routes too, the admin key sees every vault.
  expect((await get("/v1/vaults/a/vaults", admin)).body.data.vaults).toHaveLength(3);
});

test("vault_list: a vault that failed to open says its error code; the others are unaffected", async () => {
  writeFileSync(dir("not-a-folder"), "a file where a data folder should be\n");
  writeVaultTables(sb, {
    a: { path: dir("A"), data_dir: dir("dataA") },
    gone: { path: dir("never-made"), data_dir: dir("dataGone") },
    home: { path: sb.vault, data_dir: sb.dataDir },
    bad: { path: dir("W"), data_dir: dir("not-a-folder") },
  });
  try {
    expect((await get("/v1/vaults/a/notes/N0.md", tokenA)).status).toBe(200);
    const failed = await get("/v1/vaults/bad/notes/N0.md", admin);
    expect(failed.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(failed.body)).not.toContain(sb.dir);
    const listed = (await get("/v1/vaults", admin)).body.data.vaults;
    expect(failed.body.error.code).toBe("data_dir_unusable");
    expect(listed).toContainEqual({ name: "bad", default: false, state: "error", error: "data_dir_unusable" });
    expect(listed).toContainEqual({ name: "a", default: false, state: "open", notes: 2 });
    expect((await get("/v1/vaults/a/notes/N0.md", tokenA)).status).toBe(200);
  } finally {
    writeVaultTables(sb, {
      a: { path: dir("A"), data_dir: dir("dataA") },
      gone: { path: dir("never-made"), data_dir: dir("dataGone") },
      home: { path: sb.vault, data_dir: sb.dataDir },
    });
  }
});

test("vault_list: a vault's own admin token learns of its vault only; a read token is forbidden", async () => {
  const own = await get("/v1/vaults/a/vaults", tokenA);
  expect(own.status).toBe(200);
  expect(own.body.data.vaults).toEqual([{ name: "a", default: false, state: "open", notes: 2 }]);
  const reader = new TokenStore(dir("dataA")).create("reader-a", ["vault:read"]).token;
  const refused = await get("/v1/vaults/a/vaults", reader);
  expect(refused.status).toBe(403);
  expect(refused.body.error.code).toBe("forbidden");
});

test("vault_list over MCP: an admin tool at /mcp and /mcp/{name}, absent for a session without vault:admin", async () => {
  const listed = await mcpCall(`${server.url}/mcp`, admin, "vault_list");
  expect(listed.status).toBe(200);
  expect(listed.body).toContain('\\"name\\":\\"gone\\"');
  expect(listed.body).not.toContain(sb.dir);
  const own = await mcpCall(`${server.url}/mcp/a`, tokenA, "vault_list");
  expect(own.body).toContain('\\"name\\":\\"a\\"');
  expect(own.body).not.toContain("gone");
  const reader = new TokenStore(dir("dataA")).create("reader-a2", ["vault:read"]).token;
  const refused = await mcpCall(`${server.url}/mcp/a`, reader, "vault_list");
  expect(refused.body).not.toContain("gone");
  expect(refused.body).toMatch(/forbidden|not found|Unknown tool/i);
});

test("/metrics labels a named vault's series with its name, for the server's owner only; its reads have their own workers", async () => {
  expect((await get("/v1/vaults/a/search?q=A", tokenA)).status).toBe(200);
  const owner = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${admin}` } })).text();
  expect(owner).toMatch(/indx_http_requests_total\{route="GET \/v1\/search",method="GET",status="200",vault="a"\} \d+/);
  expect(owner).toContain('indx_index_notes{vault="a"} 2');
  expect(owner).toMatch(/indx_read_workers\{vault="a"\} \d+/);
  expect(owner).toMatch(/^indx_index_notes 1$/m);
  // A token of the default vault learns nothing of the named ones.
  const reader = new TokenStore(sb.dataDir).create("default-reader", ["vault:read"]).token;
  const plain = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${reader}` } })).text();
  expect(plain).toMatch(/^indx_index_notes 1$/m);
  expect(plain).not.toContain("vault=");
});

test("OpenAPI says the named-vault prefix once, without a second copy of every path", async () => {
  const spec = (await (await fetch(`${server.url}/openapi.json`)).json()) as { info: { description: string }; paths: Record<string, unknown> };
  expect(spec.info.description).toContain("/v1/vaults/{name}/");
  expect(spec.paths["/v1/vaults"]).toBeDefined();
  expect(Object.keys(spec.paths).filter((p) => p.startsWith("/v1/vaults/"))).toEqual([]);
});

test("a wrong token turns 429 as soon at an unknown vault name as at an existing vault; a name that does not decode is not_found", async () => {
  const statuses = async (path: string, token: string) => {
    const out: number[] = [];
    for (let i = 0; i < 12; i++) out.push((await get(path, token)).status);
    return out;
  };
  const atUnknown = await statuses("/v1/vaults/nope/notes/N0.md", "indx_wrong_one");
  const atExisting = await statuses("/v1/vaults/a/notes/N0.md", "indx_wrong_two");
  expect(atUnknown.slice(0, 10)).toEqual(Array(10).fill(404));
  expect(atUnknown.at(-1)).toBe(429);
  expect(atExisting.slice(0, 10)).toEqual(Array(10).fill(404));
  expect(atExisting.at(-1)).toBe(429);
  // A right token is never refused for the wrong ones sent before it.
  expect((await get("/v1/vaults/a/notes/N0.md", tokenA)).status).toBe(200);
  const undecodable = await get("/v1/vaults/%E0/notes/N0.md", admin);
  expect(undecodable.status).toBe(404);
  expect(undecodable.body.error.code).toBe("not_found");
});

test("vault_list in the CLI shows each folder as the config file writes it", () => {
  const run = Bun.spawnSync(["bun", MAIN, "vault", "list", "--json"], { env: sb.env, cwd: sb.dir });
  expect(run.stderr.toString()).toBe("");
  expect(run.exitCode).toBe(0);
  const out = JSON.parse(run.stdout.toString());
  expect(out.vaults).toEqual([
    { name: "home", default: true, state: "open", notes: 1, folder: sb.vault },
    { name: "a", default: false, state: "open", notes: 2, folder: dir("A") },
    { name: "gone", default: false, state: "missing", folder: dir("never-made") },
  ]);
});

test("a table removed while serving: its App closes without a request, its routes answer not_found; re-added, it opens again", async () => {
  const stream = listenSse(`${server.url}/v1/vaults/a/events?kinds=note`, tokenA);
  await stream.ready;
  writeVaultTables(sb, { gone: { path: dir("never-made"), data_dir: dir("dataGone") }, home: { path: sb.vault, data_dir: sb.dataDir } });
  // The server's own timer closes it: the stream ends with nobody asking.
  expect(await until(null, () => stream.ended())).toBe(true);
  await stream.stop();
  const gone = await get("/v1/vaults/a/notes/N0.md", tokenA);
  expect(gone.status).toBe(404);
  expect(gone.body.error.code).toBe("not_found");
  expect((await get("/v1/vaults", admin)).body.data.vaults.map((v: { name: string }) => v.name)).toEqual(["home", "gone"]);
  // Its watcher stopped: an edit in its folder now reaches nobody, and re-adding it opens afresh.
  writeFileSync(join(dir("A"), "Later.md"), "# Later\n");
  writeVaultTables(sb, { a: { path: dir("A"), data_dir: dir("dataA") } });
  const back = await get("/v1/vaults/a/notes/Later.md", tokenA);
  expect(back.status).toBe(200);
  expect((await get("/v1/vaults", admin)).body.data.vaults).toContainEqual({ name: "a", default: false, state: "open", notes: 3 });
});

test("a table whose path changes names another folder: the vault re-opens on it", async () => {
  expect(JSON.stringify((await get("/v1/vaults/a/notes/N0.md", tokenA)).body)).toContain("# A 0");
  writeVaultTables(sb, { a: { path: dir("A2"), data_dir: dir("dataA") } });
  const moved = await get("/v1/vaults/a/notes/N2.md", tokenA);
  expect(moved.status).toBe(200);
  expect(JSON.stringify(moved.body)).toContain("# A2 2");
  expect((await get("/v1/vaults/a/vaults", tokenA)).body.data.vaults).toEqual([{ name: "a", default: false, state: "open", notes: 3 }]);
});

test("serve --vault work beside [vaults.work]: one App behind both routes, an outside edit announced once on each", async () => {
  const other = sandbox({});
  try {
    mkdirSync(join(other.dir, "data"), { recursive: true });
    writeVaultTables(other, { work: { path: join(other.dir, "W"), data_dir: join(other.dir, "data") } });
    mkdirSync(join(other.dir, "W"), { recursive: true });
    writeFileSync(join(other.dir, "W", "Start.md"), "# Start\n");
    // What `indx serve --vault work` opens: the named vault's configuration as the default vault.
    const { App } = await import("../../src/app/context.ts");
    const { Vault } = await import("../../src/vault/vault.ts");
    const app = new App(Vault.open(loadConfig({ vaultName: "work", env: other.env, flags: { "index.debounce_ms": 20 } })));
    const srv = await startServer(app, { host: "127.0.0.1", port: 0, notice: () => {} });
    try {
      const key = loadConfig({ env: other.env }).str("server.api_key") ?? "";
      const byDefault = listenSse(`${srv.url}/v1/events?kinds=note`, key);
      const byName = listenSse(`${srv.url}/v1/vaults/work/events?kinds=note`, key);
      await Promise.all([byDefault.ready, byName.ready]);
      writeFileSync(join(other.dir, "W", "Outside.md"), "# Outside\n");
      const heard = (s: { seen: { path?: string }[] }) => s.seen.filter((f) => f.path === "Outside.md").length;
      expect(await until(null, () => heard(byDefault) > 0 && heard(byName) > 0)).toBe(true);
      // Another App's watcher would announce it a second time, on both streams (they share the log).
      await Bun.sleep(800);
      await byDefault.stop();
      await byName.stop();
      expect(heard(byDefault)).toBe(1);
      expect(heard(byName)).toBe(1);
      const listed = await fetch(`${srv.url}/v1/vaults`, { headers: { authorization: `Bearer ${key}` } });
      expect(((await listed.json()) as any).data.vaults).toEqual([{ name: "work", default: true, state: "open", notes: 2 }]);
    } finally {
      await srv.stop();
    }
  } finally {
    other.cleanup();
  }
});
