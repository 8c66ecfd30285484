import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * The vault folder goes away under a running server (docs/decisions.md, "A vault folder that goes
 * away"): reads and writes answer 503 vault_missing, nothing makes the folder again, the index is
 * not pruned, and the watcher picks the folder up again when it is back — even a new one.
 */
let sb: Sandbox;
let server: RunningServer;
let admin: string;

beforeAll(async () => {
  sb = sandbox({ "Note.md": "# Note\n\nA walrus on the ice.\n" });
  server = await startServer(sb.context({ "index.debounce_ms": 20 }), { host: "127.0.0.1", port: 0, notice: () => {} });
  admin = loadConfig({ env: sb.env }).str("server.api_key")!;
});

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const found = async (q: string) => {
  const r = await call("POST", "/v1/search", { q, mode: "lexical" });
  return r.status === 200 ? r.body.data.results.map((h: { path: string }) => h.path) : [];
};

/** Polls until `done` holds or 10 s pass; the test asserts on what it saw. */
async function until(done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await done()) && Date.now() < deadline) await Bun.sleep(50);
}

test("moved away: reads and writes are 503 vault_missing and the folder is not made again; moved back: the index is whole", async () => {
  expect(await found("walrus")).toEqual(["Note.md"]);
  renameSync(sb.vault, `${sb.vault}.away`);
  try {
    const read = await call("POST", "/v1/search", { q: "walrus", mode: "lexical" });
    expect(read.status).toBe(503);
    expect(read.body.error.code).toBe("vault_missing");
    expect(JSON.stringify(read.body)).not.toContain(sb.dir);
    const write = await call("PUT", `/v1/notes/${encodeURIComponent("New.md")}`, { body: "# New\n" });
    expect(write.status).toBe(503);
    expect(write.body.error.code).toBe("vault_missing");
    expect(existsSync(sb.vault)).toBe(false);
    // Long enough for the watcher to see the folder gone (it looks every second).
    await Bun.sleep(1_500);
  } finally {
    renameSync(`${sb.vault}.away`, sb.vault);
  }
  expect(await found("walrus")).toEqual(["Note.md"]);
}, 30_000);

test("deleted and made again: the watcher watches the new folder; an edit in it is indexed without a restart", async () => {
  rmSync(sb.vault, { recursive: true, force: true });
  await Bun.sleep(1_500);
  mkdirSync(sb.vault);
  writeFileSync(join(sb.vault, "Fresh.md"), "# Fresh\n\nA narwhal in the fjord.\n");
  await until(async () => (await found("narwhal")).length > 0);
  expect(await found("narwhal")).toEqual(["Fresh.md"]);
  // Later edits reach the index too: the new folder is watched.
  writeFileSync(join(sb.vault, "Later.md"), "# Later\n\nAn orca offshore.\n");
  await until(async () => (await found("orca")).length > 0);
  expect(await found("orca")).toEqual(["Later.md"]);
  expect(await found("walrus")).toEqual([]);
}, 30_000);
