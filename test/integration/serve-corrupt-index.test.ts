import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { closeSync, copyFileSync, openSync, readdirSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * A server whose index.db gets damaged (docs/decisions.md, "A damaged index"): reads answer a
 * typed 503 index_corrupt naming the fix, never 500; the admin's rebuild sets the file aside and
 * the server answers again; a server started on a damaged index rebuilds it on start.
 */
let sb: Sandbox;
let ctx: App | null = null;
let server: RunningServer | null = null;
let admin: string;

beforeAll(() => {
  sb = sandbox();
  for (let i = 0; i < 50; i++) sb.write(`Note ${i}.md`, `# Note ${i}\n\nwombat${i} and [[Note ${(i + 1) % 50}]] #animal\n`);
});

afterAll(async () => {
  await server?.stop();
  ctx?.close();
  sb.cleanup();
});

/** The damaged files set aside (their -wal and -shm beside them are not counted). */
function setAside(): string[] {
  return readdirSync(sb.dataDir).filter((f) => /^index\.db\.corrupt-[\dTZ-]+$/.test(f) && !/-(wal|shm)$/.test(f));
}

async function start(): Promise<void> {
  ctx = sb.context();
  server = await startServer(ctx, { host: "127.0.0.1", port: 0, watch: false, notice: () => {} });
  admin = loadConfig({ env: sb.env }).str("server.api_key")!;
}

async function stop(): Promise<void> {
  await server?.stop();
  ctx?.close();
  server = null;
  ctx = null;
}

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(server!.url + path, {
    method,
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/**
 * A damaged copy of the index put in its place (a new file, as a sync tool or a restore would
 * leave it): the header garbled. The WAL is checkpointed into the file first, so the copy holds
 * every page and no WAL page stands in for the garbled one.
 */
function replaceWithDamagedCopy(): void {
  const index = join(sb.dataDir, "index.db");
  const db = new Database(index);
  db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  const copy = join(sb.dir, "damaged.db");
  copyFileSync(index, copy);
  const fd = openSync(copy, "r+");
  writeSync(fd, new Uint8Array(4096).fill(0x5a), 0, 4096, 0);
  closeSync(fd);
  renameSync(copy, index);
}

test("while serving: reads answer 503 index_corrupt with the fix; POST /v1/vault/reindex {rebuild} sets it aside and reads answer again", async () => {
  await start();
  expect((await call("POST", "/v1/search", { q: "wombat7", mode: "lexical" })).status).toBe(200);
  replaceWithDamagedCopy();

  for (const [method, path, body] of [
    ["POST", "/v1/search", { q: "wombat7", mode: "lexical" }],
    ["GET", "/v1/tags", undefined],
    ["GET", "/v1/notes?limit=5", undefined],
  ] as const) {
    const r = await call(method, path, body);
    expect(r.status, `${method} ${path}`).toBe(503);
    expect(r.body.error.code).toBe("index_corrupt");
    expect(r.body.error.details.fix).toBe("indx vault index --rebuild");
    expect(JSON.stringify(r.body)).not.toContain(sb.dir);
  }
  const status = await call("GET", "/v1/vault/status");
  expect(status.status).toBe(200);
  expect(status.body.data.index.state).toBe("corrupt");

  const rebuild = await call("POST", "/v1/vault/reindex", { rebuild: true });
  expect(rebuild.status).toBe(200);
  expect(rebuild.body.data.rebuilt).toContain("set aside as index.db.corrupt-");
  const found = await call("POST", "/v1/search", { q: "wombat7", mode: "lexical" });
  expect(found.status).toBe(200);
  expect(found.body.data.results.map((r: { path: string }) => r.path)).toEqual(["Note 7.md"]);
  expect(setAside()).toHaveLength(1);
}, 60_000);

test("a server started on a damaged index sets it aside and rebuilds it before it answers", async () => {
  await stop();
  const before = setAside().length;
  replaceWithDamagedCopy();
  await start();
  const found = await call("POST", "/v1/search", { q: "wombat8", mode: "lexical" });
  expect(found.status).toBe(200);
  expect(found.body.data.results.map((r: { path: string }) => r.path)).toEqual(["Note 8.md"]);
  expect(setAside()).toHaveLength(before + 1);
  await stop();
}, 60_000);
