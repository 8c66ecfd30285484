import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { App } from "../../../src/app/context.ts";
import { loadConfig } from "../../../src/config/load.ts";
import { type RunningServer, startServer } from "../../../src/http/serve.ts";
import { vaultReindex } from "../../../src/maintenance/ops.ts";
import { type FakeAiServer, fakeChatEnv, fakeEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";
import { assertRestOutput, CheckedClient, invoke } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/** ai_relate over REST and MCP over HTTP: with chat and embeddings, with embeddings only, and with neither. */
interface Served {
  sb: Sandbox;
  ctx: App;
  server: RunningServer;
  token: string;
}

const NOTES: Record<string, string> = {
  "Garden/Tomatoes.md":
    "# Tomatoes\n\nTomato plants need full sunlight, warm soil and regular watering through the summer.\n\nSee [[Watering]] for the schedule.\n",
  "Garden/Watering.md": "# Watering\n\nWater the tomato plants early in the morning so the soil stays warm and the leaves dry before night.\n",
  "Kitchen/Sauce.md": "# Tomato sauce\n\nSimmer ripe tomatoes from the garden with garlic and olive oil for an hour.\n",
};

let fake: FakeAiServer;
let both: Served;
let vectorsOnly: Served;
let plain: Served;

async function serve(env: Record<string, string>): Promise<Served> {
  const sb = sandbox(NOTES);
  Object.assign(sb.env, env);
  const ctx = sb.context();
  await invoke(vaultReindex, ctx, {});
  const server = await startServer(ctx, { host: "127.0.0.1", port: 0, notice: () => {}, watch: false });
  return { sb, ctx, server, token: loadConfig({ env: sb.env }).str("server.api_key")! };
}

function request(s: Served, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${s.server.url}/v1/ai/relate`, {
    method: "POST",
    headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

async function post(s: Served, body: unknown) {
  const res = await request(s, body);
  return { status: res.status, body: (await res.json()) as any };
}

async function connect(s: Served): Promise<CheckedClient> {
  const transport = new StreamableHTTPClientTransport(new URL(`${s.server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${s.token}` } } });
  const client = new CheckedClient({ name: "relate-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

beforeAll(async () => {
  fake = startFakeAiServer();
  const embeddings = fakeEnv(fake, "ollama", "fake-embed-128");
  both = await serve({ ...embeddings, ...fakeChatEnv(fake) });
  vectorsOnly = await serve(embeddings);
  plain = await serve({});
});

afterEach(() => fake.reset());

afterAll(async () => {
  for (const s of [both, vectorsOnly, plain]) {
    await s?.server.stop();
    s?.sb.cleanup();
  }
  fake.stop();
});

const source = { kind: "path", path: "Garden/Tomatoes.md" };

describe("REST", () => {
  test("POST /v1/ai/relate returns typed edges and link drafts in the envelope; OpenAPI lists the route", async () => {
    const res = await post(both, { source, propose_links: true, cache: false });
    expect(res.status).toBe(200);
    assertRestOutput("POST", "/v1/ai/relate", res.body);
    const data = res.body.data;
    expect(data.edges.length).toBeGreaterThan(0);
    expect(data.edges.every((e: { relation?: string; evidence: unknown[] }) => e.relation && e.evidence.length > 0)).toBe(true);
    expect(data.proposed_patches[0]).toMatchObject({ path: "Garden/Tomatoes.md", ops: [{ op: "append_body" }] });
    expect(data.proposed_patches[0].related_to).not.toContain("Garden/Watering.md");
    expect(fake.chats).toHaveLength(1);
    const spec = (await fetch(`${both.server.url}/openapi.json`).then((r) => r.json())) as any;
    expect(spec.paths["/v1/ai/relate"].post).toBeTruthy();
  });

  test("streamed: each verified citation as it is known, then ai.complete with the same data", async () => {
    const plainBody = await post(both, { source, cache: false });
    const res = await request(both, { source, cache: false }, { accept: "text/event-stream" });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = (await res.text())
      .split("\n\n")
      .filter((b) => b.includes("data: "))
      .map((b) => [/^event: (.+)$/m.exec(b)![1]!, JSON.parse(/^data: (.+)$/m.exec(b)![1]!)] as [string, any]);
    const citations = events.filter(([name]) => name === "ai.citation").map(([, d]) => d.citation);
    const sorted = (list: unknown[]) => list.map((c) => JSON.stringify(c)).sort();
    expect(citations.length).toBeGreaterThan(0);
    // Streamed in the model's order; the edges are sorted afterwards.
    expect(sorted(citations)).toEqual(sorted(plainBody.body.data.edges.flatMap((e: { evidence: unknown[] }) => e.evidence)));
    expect(events.at(-1)![0]).toBe("ai.complete");
    expect(events.at(-1)![1].data).toEqual(plainBody.body.data);
  });

  test("embeddings only: labelled by the rule with chat_unavailable, no chat request", async () => {
    const res = await post(vectorsOnly, { source, cache: false });
    expect(res.status).toBe(200);
    assertRestOutput("POST", "/v1/ai/relate", res.body);
    expect(res.body.data.edges[0]).toMatchObject({ dst_path: "Garden/Watering.md", relation: "cites", confidence: 1 });
    expect(res.body.data.warnings.map((w: { code: string }) => w.code)).toContain("chat_unavailable");
    expect(fake.chats).toHaveLength(0);
    const status = (await fetch(`${vectorsOnly.server.url}/v1/ai/status`, { headers: { authorization: `Bearer ${vectorsOnly.token}` } }).then((r) =>
      r.json(),
    )) as any;
    expect(status.data.operations).toEqual(["ai_status", "ai_relate"]);
  });

  test("bad input is a 400, no model at all a 503, and nothing is sent", async () => {
    const missing = await post(both, { source: { kind: "path" } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: "validation_failed", details: { field: "source.path" } });
    const tooMany = await post(both, { source, top_k: 500 });
    expect(tooMany.status).toBe(400);
    const label = await post(both, { source, relations: ["inspires"] });
    expect(label.status).toBe(400);
    const off = await post(plain, { source });
    expect(off.status).toBe(503);
    expect(off.body.error).toMatchObject({ code: "ai_unavailable", details: { required_role: "embeddings" } });
    const spec = (await fetch(`${plain.server.url}/openapi.json`).then((r) => r.json())) as any;
    expect(spec.paths["/v1/ai/relate"]).toBeUndefined();
    expect(fake.chats).toHaveLength(0);
  });
});

describe("MCP over HTTP", () => {
  test("with embeddings only, ai_relate is listed (the chat tools are not) and answers", async () => {
    const client = await connect(vectorsOnly);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith("ai_"));
      expect(tools.sort()).toEqual(["ai_relate", "ai_status"]);
      const r = await client.callTool({ name: "ai_relate", arguments: { source, propose_links: true, cache: false } });
      expect(r.isError).toBeFalsy();
      const out = r.structuredContent as { edges: { dst_path: string }[]; proposed_patches: unknown[] };
      expect(out.edges.map((e) => e.dst_path)).toContain("Garden/Watering.md");
      expect((r.content as { text: string }[])[0]!.text.split("\n")[0]).toMatch(/^\d+ relationships? from 1 note; \d+ link drafts?$/);
    } finally {
      await client.close();
    }
  });

  test("with a chat model, ai_relate classifies through the model", async () => {
    const client = await connect(both);
    try {
      const r = await client.callTool({ name: "ai_relate", arguments: { source, relations: ["same_topic"], cache: false } });
      expect(r.isError).toBeFalsy();
      const out = r.structuredContent as { edges: { relation: string }[] };
      expect(out.edges.length).toBeGreaterThan(0);
      expect(out.edges.every((e) => e.relation === "same_topic")).toBe(true);
      expect(fake.chats).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  test("without any model the tool is not listed", async () => {
    const client = await connect(plain);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("ai_relate");
    } finally {
      await client.close();
    }
  });
});
