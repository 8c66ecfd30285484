import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { type FakeAiServer, fakeEnv, startFakeAiServer } from "../support/fake-ai-server.ts";
import { assertRestOutput, CheckedClient } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** Semantic and hybrid search over REST and MCP, with `serve` embedding in the background. */
let sb: Sandbox;
let fake: FakeAiServer;
let server: RunningServer;
let ctx: App;
let token: string;

async function post(path: string, body: unknown) {
  const res = await fetch(server.url + path, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const parsed = (await res.json()) as any;
  assertRestOutput("POST", path, parsed);
  return { status: res.status, body: parsed };
}

beforeAll(async () => {
  fake = startFakeAiServer();
  sb = sandbox({}, { fromDemo: true });
  Object.assign(sb.env, fakeEnv(fake, "ollama", "fake-embed-768"), { INDX_SEARCH_VECTOR_WEIGHT: "1" }); // evenly: these tests are about the surfaces
  ctx = sb.context();
  server = await startServer(ctx, { host: "127.0.0.1", port: 0, notice: () => {}, watch: false });
  token = loadConfig({ env: sb.env }).str("server.api_key")!;
  // serve embeds in the background right after start; wait for it.
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline && fake.embedRequests().length === 0) await Bun.sleep(10);
  await ctx.embeddings.idle();
});

afterAll(async () => {
  await server?.stop();
  fake?.stop();
  sb?.cleanup();
});

describe("over REST", () => {
  test("serve embedded the vault in the background; POST /v1/search runs hybrid by default", async () => {
    const status = await fetch(`${server.url}/v1/vault/status`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json() as any);
    assertRestOutput("GET", "/v1/vault/status", status);
    expect(status.data.embeddings).toMatchObject({ state: "ready", dimension: 768 });
    const r = await post("/v1/search", { q: "rollback runbook" });
    expect(r.status).toBe(200);
    expect(r.body.data.mode_used).toBe("hybrid");
    expect(r.body.data.results[0].path).toBe("Reference/Runbook.md");
    const sem = await post("/v1/search", { q: "rollback runbook", mode: "semantic", limit: 3 });
    expect(sem.body.data.mode_used).toBe("semantic");
    expect(sem.body.data.results.length).toBeLessThanOrEqual(3);
  });

  test("an edit through the index is embedded in the background, off the request path", async () => {
    fake.reset();
    sb.write("Notes/Server.md", "# Server note\n\nPenguins waddle across the glacier at dawn.\n");
    await ctx.updateIndex({ paths: ["Notes/Server.md"] });
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && fake.embeddedTexts().length === 0) await Bun.sleep(10);
    await ctx.embeddings.idle();
    expect(fake.embeddedTexts()).toHaveLength(1);
    const r = await post("/v1/search", { q: "penguins glacier", mode: "semantic" });
    expect(r.body.data.results[0].path).toBe("Notes/Server.md");
  });
});

describe("over MCP", () => {
  test("vault_search with mode semantic and related return structured results", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const client = new CheckedClient({ name: "t", version: "1.0.0" });
    await client.connect(transport);
    try {
      const res: any = await client.callTool({ name: "vault_search", arguments: { q: "glossary terms", mode: "hybrid" } });
      expect(res.isError).toBeFalsy();
      expect(res.structuredContent.mode_used).toBe("hybrid");
      const rel: any = await client.callTool({ name: "related", arguments: { id: "Reference/Runbook.md" } });
      expect(rel.structuredContent.mode_used).toBe("semantic");
    } finally {
      await client.close();
    }
  });
});

describe("provider trouble (last: it starts the provider cool-down)", () => {
  test("semantic with the provider down is 502 ai_provider_error; hybrid degrades with a warning", async () => {
    fake.knobs.failStatus = 503;
    try {
      const sem = await post("/v1/search", { q: "something never asked before", mode: "semantic" });
      expect(sem.status).toBe(502);
      expect(sem.body.error.code).toBe("ai_provider_error");
      const hyb = await post("/v1/search", { q: "another fresh question" });
      expect(hyb.status).toBe(200);
      expect(hyb.body.data.mode_used).toBe("lexical");
      expect(hyb.body.data.warnings[0].code).toBe("embeddings_unavailable");
    } finally {
      fake.knobs.failStatus = 0;
    }
  });
});
