import { afterAll, beforeAll, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
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
const MAIN = `${import.meta.dir}/../../src/main.ts`;
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

/** The frames of one vault's event stream, read until stopped. */
function listen(path: string, token: string): { seen: { path?: string }[]; ready: Promise<Response>; stop(): Promise<void> } {
  const controller = new AbortController();
  const seen: { path?: string }[] = [];
  // Answered once the vault is open and the stream subscribed (a first request opens the vault).
  const ready = fetch(server.url + path, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
  const pump = (async () => {
    const res = await ready;
    expect(res.status).toBe(200);
    const reader = res.body?.getReader();
    let buf = "";
    const decoder = new TextDecoder();
    try {
      while (reader) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += decoder.decode(value);
        let i = buf.indexOf("\n\n");
        while (i >= 0) {
          const data = buf
            .slice(0, i)
            .split("\n")
            .find((l) => l.startsWith("data: "));
          if (data) seen.push(JSON.parse(data.slice(6)));
          buf = buf.slice(i + 2);
          i = buf.indexOf("\n\n");
        }
      }
    } catch {}
  })();
  return {
    seen,
    ready,
    async stop() {
      controller.abort();
      await pump;
    },
  };
}

async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done() && Date.now() < deadline) await Bun.sleep(25);
}

test("an outside edit in A is announced on A's event stream only", async () => {
  const a = listen("/v1/vaults/a/events?kinds=note", tokenA);
  const b = listen("/v1/vaults/b/events?kinds=note", tokenB);
  await Promise.all([a.ready, b.ready]);
  writeFileSync(join(vaultA(), "OnlyA.md"), "# Only A\n");
  await until(() => a.seen.some((e) => e.path === "OnlyA.md"));
  // B's own edit comes after A's: once B has seen it, A's would have arrived on B's stream too.
  writeFileSync(join(vaultB(), "OnlyB.md"), "# Only B\n");
  await until(() => b.seen.some((e) => e.path === "OnlyB.md"));
  await a.stop();
  await b.stop();
  expect(a.seen.some((e) => e.path === "OnlyA.md")).toBe(true);
  expect(b.seen.some((e) => e.path === "OnlyB.md")).toBe(true);
  expect(b.seen.some((e) => e.path === "OnlyA.md")).toBe(false);
  expect(a.seen.some((e) => e.path === "OnlyB.md")).toBe(false);
});

test("MCP at /mcp/{name} takes only that vault's tokens", async () => {
  const init = (token: string) =>
    fetch(`${server.url}/mcp/a`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    });
  const own = await init(tokenA);
  expect(own.status).toBe(200);
  await own.body?.cancel();
  const other = await init(tokenB);
  expect(other.status).toBe(404);
  expect(((await other.json()) as { error: { code: string } }).error.code).toBe("not_found");
});

test("the CLI takes a configured vault's name for --vault", async () => {
  const run = Bun.spawnSync(["bun", MAIN, "note", "get", "Note.md", "--vault", "a", "--json"], { env: sb.env, cwd: sb.dir });
  expect(run.stderr.toString()).toBe("");
  expect(run.exitCode).toBe(0);
  expect(run.stdout.toString()).toContain("walrus");
});

test("a vault whose folder is missing at its first request: vault_missing for its own token, not_found for others", async () => {
  const path = loadConfig({ env: sb.env }).path;
  const dataC = join(sb.dir, "dataC");
  mkdirSync(dataC, { recursive: true });
  const tokenC = new TokenStore(dataC).create("agent-c", ["vault:read"]).token;
  // Added while serving: no restart.
  appendFileSync(path, `\n[vaults.c]\npath = ${JSON.stringify(join(sb.dir, "C-never-made"))}\ndata_dir = ${JSON.stringify(dataC)}\n`);
  const own = await get("/v1/vaults/c/notes/Note.md", tokenC);
  expect(own.status).toBe(503);
  expect(own.body.error.code).toBe("vault_missing");
  expect(JSON.stringify(own.body)).not.toContain(sb.dir);
  const other = await get("/v1/vaults/c/notes/Note.md", tokenA);
  expect(other.status).toBe(404);
  expect(other.body.error.code).toBe("not_found");
  expect((await get("/v1/vaults/a/notes/Note.md", tokenA)).status).toBe(200);
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
