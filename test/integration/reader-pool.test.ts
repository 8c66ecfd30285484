import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { App } from "../../src/app/context.ts";
import { ReaderPool } from "../../src/app/reader-pool.ts";
import { loadConfig } from "../../src/config/load.ts";
import { IndxError } from "../../src/core/errors.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { noteRead } from "../../src/notes/ops.ts";
import { type FakeAiServer, fakeEnv, startFakeAiServer } from "../support/fake-ai-server.ts";
import { CheckedClient } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** Reads answered by the reader workers of `serve` (docs/decisions.md, "Reads on a pool of threads"). */
describe("reads on reader workers", () => {
  let sb: Sandbox;
  let fake: FakeAiServer;
  let ctx: App;
  let server: RunningServer;
  let readers: ReaderPool;
  let token: string;

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(server.url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  /** Waits until the background embedder of `serve` has embedded every chunk, as this thread counts them. */
  const embedded = async () => {
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && ctx.embeddings.counts(ctx.index, ctx.embeddings.vectors(false)).pending > 0) await Bun.sleep(10);
    await ctx.embeddings.idle();
  };

  beforeAll(async () => {
    fake = startFakeAiServer();
    sb = sandbox({}, { fromDemo: true });
    Object.assign(sb.env, fakeEnv(fake, "ollama", "fake-embed-768"));
    ctx = sb.context({ "server.read_workers": 2, "server.read_nice": 5 });
    server = await startServer(ctx, { host: "127.0.0.1", port: 0, notice: () => {}, watch: false });
    token = loadConfig({ env: sb.env }).str("server.api_key")!;
    readers = server.readers!;
    await readers.ready();
    await embedded();
  });

  afterAll(async () => {
    await server?.stop();
    fake?.stop();
    sb?.cleanup();
  });

  test("a search answered by a worker sees a note written a moment before through REST", async () => {
    const put = await call("PUT", "/v1/notes/Fresh/Walrus.md", { body: "# Walrus\n\nWalruses haul out on the drifting floe.\n" });
    expect(put.status).toBe(201);
    const before = readers.answered;
    const found = await call("POST", "/v1/search", { q: "walruses floe", mode: "lexical" });
    expect(readers.answered).toBe(before + 1);
    expect(found.status).toBe(200);
    expect(found.body.data.results[0].path).toBe("Fresh/Walrus.md");
  });

  test("MCP over HTTP runs its read tools on the workers too (a costly base query holds a reader, not the thread that answers)", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const client = new CheckedClient({ name: "pool", version: "0" });
    await client.connect(transport);
    try {
      const before = readers.answered;
      const r = await client.callTool({ name: "base_query", arguments: { base: 'filters: file.ext == "md"' } });
      expect(r.isError).not.toBe(true);
      expect(readers.answered).toBe(before + 1);
      // A write stays on this thread.
      await client.callTool({ name: "note_write", arguments: { path: "Fresh/Pool.md", content: "# Pool\n" } });
      expect(readers.answered).toBe(before + 1);
    } finally {
      await client.close();
    }
  });

  test("a worker's embedding coverage and vectors follow the main thread's embedding runs", async () => {
    await embedded();
    const settled = await call("GET", "/v1/vault/status?probe=false");
    expect(settled.body.data.embeddings.counts.pending).toBe(0);
    // The worker loads its vectors into memory now, before the note below is embedded.
    const earlier = await call("POST", "/v1/search", { q: "penguins glacier", mode: "semantic" });
    expect(earlier.body.data.mode_used).toBe("semantic");
    await call("PUT", "/v1/notes/Fresh/Penguin.md", { body: "# Penguin\n\nPenguins waddle across the glacier at dawn.\n" });
    // Read before the background embedder ran: the worker counts the new chunk as pending (the index update reached it).
    const pending = await call("GET", "/v1/vault/status?probe=false");
    expect(pending.body.data.embeddings.counts.pending).toBeGreaterThan(0);
    await embedded();
    const before = readers.answered;
    const status = await call("GET", "/v1/vault/status?probe=false");
    expect(status.body.data.embeddings).toMatchObject({ state: "ready", counts: { pending: 0 } });
    const semantic = await call("POST", "/v1/search", { q: "penguins glacier", mode: "semantic" });
    expect(semantic.body.data.results[0].path).toBe("Fresh/Penguin.md");
    expect(readers.answered).toBe(before + 2);
  });

  test.if(process.platform === "linux")(
    'with server.read_nice, readers run below the thread that answers requests and the index worker (docs/decisions.md, "Writes under load")',
    () => {
      // A thread's name and nice value, from its /proc stat line (the nice value is field 19).
      const threads = readdirSync("/proc/self/task").map((task) => {
        const stat = readFileSync(`/proc/self/task/${task}/stat`, "utf8");
        return { name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), nice: Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]) };
      });
      const base = threads[0]?.nice ?? Number.NaN;
      const workers = threads.filter((t) => t.name === "Worker").map((t) => t.nice - base);
      expect(readers.readyCount).toBe(2);
      // The two readers five levels down; the index worker (it ran this suite's writes) as this thread.
      expect(workers.filter((d) => d === 5).length).toBe(2);
      expect(workers.filter((d) => d === 0).length).toBeGreaterThanOrEqual(1);
      expect(workers.every((d) => d === 0 || d === 5)).toBe(true);
    },
  );

  test("errors from a worker keep their code, message and status", async () => {
    const before = readers.answered;
    const missing = await call("GET", "/v1/notes/Nowhere.md");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
    const bad = await call("GET", "/v1/search?q=x&limit=-3");
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("validation_failed");
    expect(readers.answered).toBe(before + 2);
  });
});

describe("a reader worker that dies", () => {
  let sb: Sandbox;
  let ctx: App;
  let pool: ReaderPool;

  beforeAll(async () => {
    sb = sandbox({ "Once.md": "# Once\n\nanswered after one crash\n", "Crash.md": "# Crash\n", "Plain.md": "# Plain\n" });
    ctx = sb.context();
    await ctx.updateIndex({ build: true });
    pool = new ReaderPool(ctx.vault, 2, new URL("../support/crashing-reader.ts", import.meta.url));
    await pool.ready();
  });

  afterAll(() => {
    pool?.close();
    ctx?.close();
    sb?.cleanup();
  });

  test("a read whose worker dies is answered by another worker", async () => {
    const { result } = await pool.invoke(noteRead, ctx, { path: "Once.md" });
    expect(result.body).toContain("answered after one crash");
    expect(pool.answered).toBe(1);
  });

  test("a read that ends every worker it reaches fails with a typed error, and the pool recovers", async () => {
    const failed = await pool.invoke(noteRead, ctx, { path: "Crash.md" }).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(IndxError);
    expect((failed as IndxError).toJSON()).toMatchObject({ code: "internal", details: { reason: "reader_stopped" } });
    await pool.ready();
    const before = pool.answered;
    const { result } = await pool.invoke(noteRead, ctx, { path: "Plain.md" });
    expect(result.body).toContain("# Plain");
    expect(pool.answered).toBe(before + 1);
  });
});
