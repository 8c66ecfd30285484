import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OPERATIONS } from "../../src/app/registry.ts";
import { TokenStore } from "../../src/auth/tokens.ts";
import { loadConfig } from "../../src/config/load.ts";
import { ROUTES } from "../../src/http/routes.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { vaultUri } from "../../src/mcp/uris.ts";
import { inputsFor, LEAK_FILES, restRequestOf } from "../support/grant-leak.ts";
import { until } from "../support/listen.ts";
import { listenMcp, listenSse, mcpCall, writeVaultTables } from "../support/named-vaults.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * Issue 31's must-show for two vaults served by one process (docs/decisions.md, "Several vaults
 * in one server"): an outside edit in A reaches A's subscribers only (REST events and MCP
 * subscriptions/listen); a token of A gets not_found, never data, on every route of vault B the
 * operation registry yields; B's folder deleted while serving leaves A answering.
 */
let sb: Sandbox;
let server: RunningServer;
let admin: string;
let tokenA: string;
let tokenB: string;
const dir = (name: string) => join(sb.dir, name);
/** What vault B holds and vault A does not: any of it in an answer to A's token is a leak. */
const B_WORDS = /Alpha|Beta|Draft|Linked|zq[a-z]+\d\d|zebra|Projects|Personal|Journal/;

beforeAll(async () => {
  sb = sandbox({ "Default.md": "# Default\n" });
  mkdirSync(dir("A"), { recursive: true });
  writeFileSync(join(dir("A"), "Apple.md"), "# Apple\n\nOnly in A.\n");
  for (const [path, body] of Object.entries(LEAK_FILES)) {
    mkdirSync(join(dir("B"), path, ".."), { recursive: true });
    writeFileSync(join(dir("B"), path), body);
  }
  for (const d of ["dataA", "dataB"]) mkdirSync(dir(d), { recursive: true });
  writeVaultTables(sb, { a: { path: dir("A"), data_dir: dir("dataA") }, b: { path: dir("B"), data_dir: dir("dataB") } });
  const every = ["vault:read", "vault:write", "vault:admin"] as const;
  tokenA = new TokenStore(dir("dataA")).create("agent-a", [...every]).token;
  tokenB = new TokenStore(dir("dataB")).create("agent-b", ["vault:read"]).token;
  server = await startServer(sb.context({ "index.debounce_ms": 20, "server.rate_limit_per_second": 0 }), {
    host: "127.0.0.1",
    port: 0,
    notice: () => {},
  });
  admin = loadConfig({ env: sb.env }).str("server.api_key") ?? "";
}, 60_000);

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

const diskOfB = () => readdirSync(dir("B"), { recursive: true }).map(String).sort();

test("a token of vault A gets not_found, never data, on every route of vault B the registry yields", async () => {
  const before = diskOfB();
  const leaks: string[] = [];
  let sent = 0;
  let answeredForB = 0;
  for (const route of ROUTES)
    for (const input of inputsFor(route.op)) {
      const { url, init } = restRequestOf(route, input, tokenA, "/v1/vaults/b/");
      const res = await fetch(server.url + url, init);
      const text = await res.text();
      sent++;
      // HEAD answers with no body: its status is all it says.
      const code = route.method === "HEAD" ? "not_found" : JSON.parse(text).error?.code;
      if (res.status !== 404 || code !== "not_found" || B_WORDS.test(text)) leaks.push(`${route.method} ${url}: ${res.status} ${text.slice(0, 200)}`);
      // The same request with B's own token reaches B: the sweep calls real routes.
      if (route.op.safe && !route.op.ai && route.op.scope === "vault:read") {
        const own = restRequestOf(route, input, tokenB, "/v1/vaults/b/");
        if ((await fetch(server.url + own.url, own.init)).status === 200) answeredForB++;
      }
    }
  // Every operation as an MCP tool at /mcp/b (2026-07-28: each call stands alone).
  for (const op of OPERATIONS) {
    const res = await mcpCall(`${server.url}/mcp/b`, tokenA, op.name, inputsFor(op)[0] ?? {});
    sent++;
    if (res.status !== 404 || B_WORDS.test(res.body)) leaks.push(`MCP ${op.name}: ${res.status} ${res.body.slice(0, 200)}`);
  }
  for (const path of ["/v1/vaults/b/events", "/v1/vaults/b/nothing", "/mcp/b"]) {
    const res = await fetch(server.url + path, { method: path.startsWith("/mcp") ? "POST" : "GET", headers: { authorization: `Bearer ${tokenA}` } });
    const text = await res.text();
    if (res.status !== 404 || B_WORDS.test(text)) leaks.push(`${path}: ${res.status} ${text.slice(0, 200)}`);
  }
  expect(leaks).toEqual([]);
  expect(sent).toBeGreaterThan(ROUTES.length);
  expect(answeredForB).toBeGreaterThan(20);
  // Nothing A's token sent (writes, moves, deletes, a reindex) changed B.
  expect(diskOfB()).toEqual(before);
}, 180_000);

test("an outside edit in A reaches A's REST and MCP subscribers, never B's", async () => {
  const restA = listenSse(`${server.url}/v1/vaults/a/events?kinds=note`, tokenA);
  const restB = listenSse(`${server.url}/v1/vaults/b/events?kinds=note`, tokenB);
  const mcpA = listenMcp(`${server.url}/mcp/a`, tokenA, ["vault://**"]);
  const mcpB = listenMcp(`${server.url}/mcp/b`, tokenB, ["vault://**"]);
  await Promise.all([restA.ready, restB.ready]);
  expect(await until(null, () => mcpA.acknowledged() && mcpB.acknowledged())).toBe(true);
  writeFileSync(join(dir("A"), "Outside.md"), "# Outside\n");
  expect(await until(null, () => restA.seen.some((e) => e.path === "Outside.md") && mcpA.updated.includes(vaultUri("Outside.md")))).toBe(true);
  // B's own edit after A's: once B's subscribers hear theirs, A's would have reached them too.
  writeFileSync(join(dir("B"), "Inbox", "OnlyB.md"), "# Only B\n");
  expect(await until(null, () => restB.seen.some((e) => e.path === "Inbox/OnlyB.md") && mcpB.updated.includes(vaultUri("Inbox/OnlyB.md")))).toBe(true);
  await Bun.sleep(300);
  for (const s of [restA, restB, mcpA, mcpB]) await s.stop();
  expect(restB.seen.some((e) => e.path === "Outside.md")).toBe(false);
  expect(mcpB.updated).not.toContain(vaultUri("Outside.md"));
  expect(restA.seen.some((e) => e.path === "Inbox/OnlyB.md")).toBe(false);
  expect(mcpA.updated).not.toContain(vaultUri("Inbox/OnlyB.md"));
}, 60_000);

test("vault B's folder deleted while serving: A keeps answering, B answers vault_missing to the admin", async () => {
  const get = (path: string, token: string) => fetch(server.url + path, { headers: { authorization: `Bearer ${token}` } });
  expect((await get("/v1/vaults/b/notes/Projects/Alpha.md", tokenB)).status).toBe(200);
  rmSync(dir("B"), { recursive: true, force: true });
  const gone = await get("/v1/vaults/b/notes/Projects/Alpha.md", admin);
  expect(gone.status).toBe(503);
  expect(((await gone.json()) as { error: { code: string } }).error.code).toBe("vault_missing");
  // A token of A still learns nothing of B, not even that it is gone.
  expect((await get("/v1/vaults/b/notes/Projects/Alpha.md", tokenA)).status).toBe(404);
  const a = await get("/v1/vaults/a/search?q=apple", tokenA);
  expect(a.status).toBe(200);
  expect(await a.text()).toContain("Apple.md");
  const listed = (await (await get("/v1/vaults", admin)).json()) as { data: { vaults: { name: string; state: string }[] } };
  expect(listed.data.vaults.find((v) => v.name === "b")?.state).toBe("missing");
  expect(listed.data.vaults.find((v) => v.name === "a")?.state).toBe("open");
});
