import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { App } from "../../../src/app/context.ts";
import { loadConfig } from "../../../src/config/load.ts";
import { type RunningServer, startServer } from "../../../src/http/serve.ts";
import { vaultReindex } from "../../../src/maintenance/ops.ts";
import { type FakeAiServer, fakeChatEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";
import { parsePassages } from "../../support/fake-chat.ts";
import { assertRestOutput, CheckedClient, invoke } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/** The AI operations over REST (plain and streamed) and MCP over HTTP, against the fake chat server. */
interface Served {
  sb: Sandbox;
  ctx: App;
  server: RunningServer;
  token: string;
}

let fake: FakeAiServer;
let ai: Served;
let plain: Served;

async function serve(env: Record<string, string>): Promise<Served> {
  const sb = sandbox({}, { fromDemo: true });
  Object.assign(sb.env, env);
  const ctx = sb.context();
  await invoke(vaultReindex, ctx, {});
  const server = await startServer(ctx, { host: "127.0.0.1", port: 0, notice: () => {}, watch: false });
  return { sb, ctx, server, token: loadConfig({ env: sb.env }).str("server.api_key")! };
}

async function post(s: Served, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(s.server.url + path, {
    method: "POST",
    headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

/** Server-sent events as [name, data] pairs. */
function events(text: string): [string, any][] {
  return text
    .split("\n\n")
    .filter((b) => b.includes("data: "))
    .map((b) => [/^event: (.+)$/m.exec(b)![1]!, JSON.parse(/^data: (.+)$/m.exec(b)![1]!)]);
}

beforeAll(async () => {
  fake = startFakeAiServer();
  ai = await serve(fakeChatEnv(fake));
  plain = await serve({});
});

afterEach(() => fake.reset());

afterAll(async () => {
  for (const s of [ai, plain]) {
    await s?.server.stop();
    s?.sb.cleanup();
  }
  fake.stop();
});

describe("REST", () => {
  test("POST /v1/ai/ask answers in the envelope; streamed, ai.complete carries the same data", async () => {
    const body = { question: "How do we roll back the release?", cache: false };
    const res = await post(ai, "/v1/ai/ask", body);
    expect(res.status).toBe(200);
    const plainBody = (await res.json()) as any;
    assertRestOutput("POST", "/v1/ai/ask", plainBody);

    fake.scriptChat({ chunks: 6, chunkDelayMs: 5 });
    const streamed = await post(ai, "/v1/ai/ask", body, { accept: "text/event-stream" });
    expect(streamed.headers.get("content-type")).toContain("text/event-stream");
    const evs = events(await streamed.text());
    const names = evs.map(([name]) => name);
    expect(names).toContain("ai.partial");
    expect(names).toContain("ai.citation");
    expect(names.at(-1)).toBe("ai.complete");
    expect(evs.at(-1)![1].data).toEqual(plainBody.data);
    // The partial deltas spell the answer.
    const text = evs
      .filter(([n]) => n === "ai.partial")
      .map(([, d]) => d.delta)
      .join("");
    expect(text).toBe(plainBody.data.answer);
  });

  test("an Idempotency-Key replays an AI read without a second generation; a provider that does not stream says so", async () => {
    const body = { question: "What must never be skipped before a deploy?", cache: false };
    const first = await post(ai, "/v1/ai/ask", body, { "idempotency-key": "ask-once" });
    expect(first.status).toBe(200);
    const calls = fake.chats.length;
    const again = await post(ai, "/v1/ai/ask", body, { "idempotency-key": "ask-once" });
    expect(again.headers.get("x-indx-idempotent-replay")).toBe("true");
    expect(((await again.json()) as any).data).toEqual(((await first.json()) as any).data);
    expect(fake.chats.length).toBe(calls);

    fake.scriptChat({ noStream: true });
    const streamed = await post(ai, "/v1/ai/ask", body, { accept: "text/event-stream" });
    const complete = events(await streamed.text()).at(-1)!;
    expect(complete[0]).toBe("ai.complete");
    expect(complete[1].data.warnings.map((w: { code: string }) => w.code)).toContain("stream_unsupported");
  });

  test("GET /v1/ai/status reports the chat model; OpenAPI lists the AI routes", async () => {
    const status = (await fetch(`${ai.server.url}/v1/ai/status`, { headers: { authorization: `Bearer ${ai.token}` } }).then((r) => r.json())) as any;
    assertRestOutput("GET", "/v1/ai/status", status);
    expect(status.data).toMatchObject({ enabled: true, chat: { provider: "ollama", model: "fake-chat" } });
    const spec = (await fetch(`${ai.server.url}/openapi.json`).then((r) => r.json())) as any;
    expect(spec.paths["/v1/ai/ask"].post).toBeTruthy();
    const vault = (await fetch(`${ai.server.url}/v1/vault/status?probe=false`, { headers: { authorization: `Bearer ${ai.token}` } }).then((r) =>
      r.json(),
    )) as any;
    expect(vault.data.ai).toMatchObject({ enabled: true, chat: "ollama/fake-chat" });
    expect(vault.data.ai.requests_today).toBeGreaterThan(0);
  });

  test("without a provider: 503 ai_unavailable naming the role, ai_status still answers, nothing is sent", async () => {
    const res = await post(plain, "/v1/ai/ask", { question: "How do we roll back?" });
    expect(res.status).toBe(503);
    const body = (await res.json()) as any;
    expect(body.error).toMatchObject({ code: "ai_unavailable", details: { required_role: "chat" } });
    const status = (await fetch(`${plain.server.url}/v1/ai/status`, { headers: { authorization: `Bearer ${plain.token}` } }).then((r) => r.json())) as any;
    expect(status.data.enabled).toBe(false);
    const spec = (await fetch(`${plain.server.url}/openapi.json`).then((r) => r.json())) as any;
    expect(spec.paths["/v1/ai/ask"]).toBeUndefined();
    expect(fake.requests).toHaveLength(0);
    expect(fake.chats).toHaveLength(0);
  });

  test("a streamed call that fails before its first event is an ordinary error response", async () => {
    fake.scriptChat({ status: 500 });
    const res = await post(ai, "/v1/ai/ask", { question: "How do we roll back?", cache: false }, { accept: "text/event-stream" });
    expect(res.status).toBe(502);
    expect(((await res.json()) as any).error.code).toBe("ai_provider_error");
  });
});

describe("MCP over HTTP", () => {
  async function connect(s: Served) {
    const transport = new StreamableHTTPClientTransport(new URL(`${s.server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${s.token}` } },
    });
    const client = new CheckedClient({ name: "ai-test", version: "1.0.0" });
    await client.connect(transport);
    return client;
  }

  test("ai_* tools are listed only when a chat model is configured", async () => {
    const withAi = await connect(ai);
    const without = await connect(plain);
    try {
      const listed = (c: CheckedClient) => c.listTools().then((r) => r.tools.map((t) => t.name).filter((n) => n.startsWith("ai_")));
      const tools = (await listed(withAi)).sort();
      expect(tools).toEqual(["ai_ask", "ai_extract", "ai_metadata", "ai_relate", "ai_status", "ai_summarize", "ai_tag", "ai_toc"]);
      expect(await listed(without)).toEqual([]);
      // ai_status names exactly the operations the catalogue offers.
      const status = await withAi.callTool({ name: "ai_status", arguments: {} });
      expect([...(status.structuredContent as { operations: string[] }).operations].sort()).toEqual(tools);
    } finally {
      await withAi.close();
      await without.close();
    }
  });

  test("progress notifications carry the partial answer while the call runs", async () => {
    const client = await connect(ai);
    try {
      // Three claims, each a line of a passage quoting itself: each streams once it is verified.
      fake.onChat((chat) => {
        const lines = parsePassages(chat.text).flatMap((p) =>
          p.text
            .split("\n")
            .map((l) => l.trim())
            .filter((l) => l.length >= 30 && !l.startsWith("#"))
            .map((l) => ({ passage: p.id, line: l })),
        );
        const segments = lines.slice(0, 3).map((l) => ({ text: l.line, citations: [{ passage: l.passage, quote: l.line }] }));
        return { content: { supported: true, segments, followups: [] }, chunks: 24, chunkDelayMs: 10 };
      });
      const seen: { at: number; message: string }[] = [];
      const result = await client.callTool({ name: "ai_ask", arguments: { question: "How do we roll back the release?", cache: false } }, undefined, {
        onprogress: (p) => seen.push({ at: performance.now(), message: String(p.message) }),
      });
      const done = performance.now();
      expect(result.isError).toBeFalsy();
      const partials = seen.filter((s) => JSON.parse(s.message).type === "ai.partial");
      expect(partials.length).toBeGreaterThan(1);
      // The first partial came well before the result: streaming, not a burst at the end.
      expect(done - partials[0]!.at).toBeGreaterThan(60);
      const answer = (result.structuredContent as { answer: string }).answer;
      expect(partials.map((s) => JSON.parse(s.message).delta).join("")).toBe(answer);
    } finally {
      await client.close();
    }
  });
});
