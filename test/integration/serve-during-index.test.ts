import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import type { IndexReport } from "../../src/index/build/indexer.ts";
import { indexWriteLocked } from "../support/index-rows.ts";
import { CheckedClient } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * `serve` keeps answering while the index is rebuilt: index passes run in the index worker, and a
 * rebuild of a good index is one transaction, so reads see the old index until it commits. The
 * real server on an ephemeral port, a vault big enough for a rebuild to take a while.
 */

const NOTES = 3000;
const FILLER = "Words about the project, its plans and the people in it, to give the indexer some work.\n".repeat(30);

let sb: Sandbox;
let ctx: App;
let server: RunningServer;
let admin: string;
const reports: IndexReport[] = [];

beforeAll(async () => {
  sb = sandbox();
  for (let i = 0; i < NOTES; i++) sb.write(`n${i % 30}/Note ${i}.md`, `# Note ${i}\n\nSee [[Note ${i + 1}]]. Token zq${i}marker.\n\n${FILLER}`);
  ctx = sb.context();
  ctx.onIndexUpdate((report) => void reports.push(report));
  server = await startServer(ctx, { host: "127.0.0.1", port: 0, watch: false, notice: () => {} });
  admin = loadConfig({ env: sb.env }).str("server.api_key")!;
}, 60_000);

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

async function searchPaths(q: string): Promise<string[]> {
  const r = await call("POST", "/v1/search", { q, mode: "lexical", limit: 5 });
  if (r.status !== 200) throw new Error(`search answered ${r.status}: ${JSON.stringify(r.body.error)}`);
  return r.body.data.results.map((h: { path: string }) => h.path);
}

/** Waits until the rebuild holds the write lock (or `settled` says it is over already). */
async function untilUnderway(settled: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!indexWriteLocked(sb.dataDir)) {
    if (settled() || Date.now() > deadline) throw new Error("the rebuild was never seen under way");
    await Bun.sleep(5);
  }
}

describe("while a rebuild runs in the index worker", () => {
  test("/health and search answer, from the old index; a write lands and is indexed after it", async () => {
    let done = false;
    const rebuild = call("POST", "/v1/vault/reindex", { rebuild: true, embeddings: false }).finally(() => (done = true));
    await untilUnderway(() => done);

    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(await searchPaths("zq1234marker")).toEqual(["n4/Note 1234.md"]);
    // Both answered while the rebuild was still running.
    expect(done).toBe(false);

    const written = await call("PUT", `/v1/notes/${encodeURIComponent("Fresh.md")}`, { body: "# Fresh\n\nA quasarbeam note written mid-rebuild.\n" });
    expect(written.status).toBe(201);
    expect(await searchPaths("quasarbeam")).toEqual(["Fresh.md"]);

    const result = await rebuild;
    expect(result.status).toBe(200);
    expect(result.body.data.rebuilt).toBe("rebuild requested");
    // The rebuild lists the vault inside its transaction: the new note may or may not be in it.
    expect([NOTES, NOTES + 1]).toContain(result.body.data.added);
    expect(await searchPaths("quasarbeam")).toEqual(["Fresh.md"]);
    expect(await searchPaths("zq1234marker")).toEqual(["n4/Note 1234.md"]);
  }, 60_000);
});

describe("MCP over Streamable HTTP", () => {
  async function connect(): Promise<CheckedClient> {
    const client = new CheckedClient({ name: "during-index", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${admin}` } } }));
    return client;
  }

  test("vault_reindex progress reaches the client while the rebuild runs, well before the result", async () => {
    const client = await connect();
    try {
      const started = performance.now();
      let firstProgressAt: number | null = null;
      const r = await client.callTool({ name: "vault_reindex", arguments: { rebuild: true, embeddings: false } }, undefined, {
        onprogress: () => void (firstProgressAt ??= performance.now()),
        timeout: 60_000,
      });
      const resultAt = performance.now();
      expect(r.isError).toBeFalsy();
      expect(firstProgressAt).not.toBeNull();
      // The first batch is about a twelfth of the work: its progress comes long before the end.
      expect(resultAt - firstProgressAt!).toBeGreaterThan((resultAt - started) / 4);
    } finally {
      await client.close();
    }
  }, 60_000);

  test("a cancelled vault_reindex stops: the rebuild rolls back and the index stays as it was", async () => {
    const client = await connect();
    try {
      const cancel = new AbortController();
      const before = reports.length;
      const call = client.callTool({ name: "vault_reindex", arguments: { rebuild: true, embeddings: false } }, undefined, {
        signal: cancel.signal,
        onprogress: () => cancel.abort("the agent moved on"),
        timeout: 60_000,
      });
      await expect(call).rejects.toThrow();
      // Index jobs run in order: once a later write's reindex is done, the rebuild is over either way.
      const written = await fetch(`${server.url}/v1/notes/${encodeURIComponent("After cancel.md")}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
        body: JSON.stringify({ body: "# After\n\nwritten after the cancel\n" }),
      });
      expect(written.status).toBe(201);
      const since = reports.slice(before);
      expect(since.map((r) => r.rebuilt)).toEqual([null]);
      expect(since[0]!.changed).toEqual(["After cancel.md"]);
      expect(await searchPaths("zq2999marker")).toEqual(["n29/Note 2999.md"]);
    } finally {
      await client.close();
    }
  }, 60_000);
});
