import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { aiSummarize } from "../../../src/ai/ops/summarize/summarize-ops.ts";
import { aiToc } from "../../../src/ai/ops/toc/toc-ops.ts";
import type { App } from "../../../src/app/context.ts";
import { loadConfig } from "../../../src/config/load.ts";
import { type RunningServer, startServer } from "../../../src/http/serve.ts";
import { vaultReindex } from "../../../src/maintenance/ops.ts";
import { MAX_AI_SUBSCRIPTIONS } from "../../../src/mcp/ai-subscriptions.ts";
import { aiUri } from "../../../src/mcp/ai-uris.ts";
import { type FakeAiServer, fakeChatEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";
import { assertOutput, CheckedClient, invoke } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/**
 * The live AI resources (ai://summary, ai://moc) over MCP Streamable HTTP with the SDK's client,
 * against the fake chat server: reads derive grounded results through the AI cache; a
 * subscription hears one notification per burst of changes to its scope, and none for others.
 */

interface Served {
  sb: Sandbox;
  ctx: App;
  server: RunningServer;
  token: string;
}

let fake: FakeAiServer;
let ai: Served;
let plain: Served;
const clients: CheckedClient[] = [];

/** A burst is over after a second of quiet (src/mcp/live-ai.ts); this is comfortably more. */
const AFTER_BURST_MS = 2_500;
/** Subscription tests wait out bursts. */
const SLOW = { timeout: 20_000 };

async function serve(env: Record<string, string>): Promise<Served> {
  const sb = sandbox({}, { fromDemo: true });
  Object.assign(sb.env, env);
  const ctx = sb.context();
  await invoke(vaultReindex, ctx, {});
  const server = await startServer(ctx, { host: "127.0.0.1", port: 0, notice: () => {}, watch: false });
  return { sb, ctx, server, token: loadConfig({ env: sb.env }).str("server.api_key")! };
}

async function connect(s: Served) {
  const transport = new StreamableHTTPClientTransport(new URL(`${s.server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${s.token}` } },
  });
  const client = new CheckedClient({ name: "ai-resources-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** The URIs of every notifications/resources/updated the client receives. */
function updates(client: CheckedClient): string[] {
  const seen: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void seen.push(n.params.uri));
  return seen;
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > end) throw new Error("timed out waiting");
    await Bun.sleep(25);
  }
}

const text = (r: { contents: unknown[] }) => (r.contents[0] as { text: string }).text;
const append = (client: CheckedClient, path: string, markdown: string) =>
  client.callTool({ name: "note_patch", arguments: { path, ops: [{ op: "append_body", markdown }] } });

beforeAll(async () => {
  fake = startFakeAiServer();
  // The board is in the Projects glob, but no model may read it.
  ai = await serve({ ...fakeChatEnv(fake), INDX_AI_DENY_GLOBS: "Projects/Project board.md" });
  plain = await serve({});
});

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  fake.reset();
});

afterAll(async () => {
  for (const s of [ai, plain]) {
    await s?.server.stop();
    s?.sb.cleanup();
  }
  fake.stop();
});

const PROJECTS = aiUri("summary", { kind: "glob", path_glob: "Projects/**" });

describe("reading", () => {
  test("ai://summary returns ai_summarize's grounded result for the scope; a second read is a cache hit", async () => {
    const client = await connect(ai);
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toContain("ai://summary/{kind}/{value}{?mode,limit,include_linked}");
    expect(templates).toContain("ai://moc/{kind}/{value}{?mode,limit,include_linked}");

    const read = await client.readResource({ uri: PROJECTS });
    expect(read.contents[0]).toMatchObject({ uri: PROJECTS, mimeType: "application/json" });
    const summary = JSON.parse(text(read));
    assertOutput(aiSummarize, summary, "ai://summary");
    expect(summary.scope_resolved.paths).toEqual(["Projects/Apollo Launch.md", "Projects/Beacon Research.md"]);
    expect(summary.warnings.map((w: { code: string }) => w.code)).toContain("globs_excluded");
    expect(summary.citations.length).toBeGreaterThan(0);
    for (const c of summary.citations) expect(c.path).toStartWith("Projects/");
    expect(fake.chats.length).toBe(1);
    expect(fake.chats[0]!.text).toContain("Apollo");

    const again = JSON.parse(text(await client.readResource({ uri: PROJECTS })));
    expect(fake.chats.length).toBe(1);
    expect(again.warnings.map((w: { code: string }) => w.code)).toContain("ai_cache_hit");
    expect(again.citations).toEqual(summary.citations);
  });

  test("ai://moc returns ai_toc's map of content; a bad URI or an empty scope is a typed error", async () => {
    const client = await connect(ai);
    const moc = JSON.parse(text(await client.readResource({ uri: aiUri("moc", { kind: "tag", tag: "project" }) })));
    assertOutput(aiToc, moc, "ai://moc");
    expect(moc.toc_markdown).toContain("[[");
    expect(moc.scope_resolved.paths.length).toBeGreaterThan(0);

    await expect(client.readResource({ uri: "ai://summary/glob/Projects/**" })).rejects.toMatchObject({ code: -32602, data: { code: "validation_failed" } });
    await expect(client.readResource({ uri: "ai://summary/glob/Nowhere%2F**" })).rejects.toMatchObject({ code: -32002, data: { code: "not_found" } });
  });

  test("without a chat model the templates are hidden and reads and subscriptions are ai_unavailable, with nothing sent", async () => {
    const client = await connect(plain);
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates.some((t) => t.startsWith("ai://"))).toBe(false);
    expect(templates).toContain("vault://{+path}");
    await expect(client.readResource({ uri: PROJECTS })).rejects.toMatchObject({ data: { code: "ai_unavailable" } });
    await expect(client.subscribeResource({ uri: PROJECTS })).rejects.toMatchObject({ data: { code: "ai_unavailable" } });
    expect(fake.requests).toHaveLength(0);
  });
});

describe("subscriptions", () => {
  test(
    "several quick edits of a note in scope: one derivation, one notification per subscriber; the next read is that result",
    async () => {
      const a = await connect(ai);
      const b = await connect(ai);
      const seenA = updates(a);
      const seenB = updates(b);
      await a.subscribeResource({ uri: PROJECTS });
      await b.subscribeResource({ uri: PROJECTS });
      expect(fake.chats).toHaveLength(0);

      for (const n of [1, 2, 3]) expect((await append(a, "Projects/Beacon Research.md", `Quick edit ${n}.\n`)).isError).toBeFalsy();
      await until(() => seenA.length > 0 && seenB.length > 0);
      await Bun.sleep(AFTER_BURST_MS);
      expect(seenA).toEqual([PROJECTS]);
      expect(seenB).toEqual([PROJECTS]);
      expect(fake.chats).toHaveLength(1);
      expect(fake.chats[0]!.text).toContain("Quick edit 3.");

      // The subscriber's read finds the re-derived result in the cache.
      const read = JSON.parse(text(await a.readResource({ uri: PROJECTS })));
      expect(fake.chats).toHaveLength(1);
      expect(read.warnings.map((w: { code: string }) => w.code)).toContain("ai_cache_hit");
      const beacon = (await a.callTool({ name: "note_read", arguments: { path: "Projects/Beacon Research.md" } })).structuredContent as { etag: string };
      for (const c of read.citations) if (c.path === "Projects/Beacon Research.md") expect(c.etag).toBe(beacon.etag);
    },
    SLOW,
  );

  test(
    "edits outside the scope, or to a note the deny globs keep out of it, send nothing and derive nothing",
    async () => {
      const client = await connect(ai);
      const seen = updates(client);
      await client.subscribeResource({ uri: PROJECTS });
      await append(client, "Inbox.md", "Unrelated.\n");
      await append(client, "Projects/Project board.md", "Denied to models.\n");
      await append(client, "People/Ada Lovelace.md", "Also unrelated.\n");
      await Bun.sleep(AFTER_BURST_MS);
      expect(seen).toEqual([]);
      expect(fake.chats).toHaveLength(0);
    },
    SLOW,
  );

  test(
    "a note joining the scope fires once; after unsubscribing nothing does",
    async () => {
      const client = await connect(ai);
      const seen = updates(client);
      await client.subscribeResource({ uri: PROJECTS });
      const created = await client.callTool({
        name: "note_write",
        arguments: { path: "Projects/Comet Idea.md", body: "# Comet\n\nA new project about comets and their orbits.\n" },
      });
      expect(created.isError).toBeFalsy();
      await until(() => seen.length > 0);
      await Bun.sleep(AFTER_BURST_MS);
      expect(seen).toEqual([PROJECTS]);
      expect(fake.chats.at(-1)!.text).toContain("comets");

      await client.unsubscribeResource({ uri: PROJECTS });
      await append(client, "Projects/Comet Idea.md", "More about comets.\n");
      await Bun.sleep(AFTER_BURST_MS);
      expect(seen).toEqual([PROJECTS]);
    },
    SLOW,
  );

  test(
    `a session holds at most ${MAX_AI_SUBSCRIPTIONS} AI subscriptions; unsubscribing frees a slot`,
    async () => {
      const client = await connect(ai);
      const uri = (i: number) => aiUri("moc", { kind: "tag", tag: `topic-${i}` });
      for (let i = 0; i < MAX_AI_SUBSCRIPTIONS; i++) await client.subscribeResource({ uri: uri(i) });
      await client.subscribeResource({ uri: uri(0) }); // the same URI again is the same subscription
      await expect(client.subscribeResource({ uri: uri(MAX_AI_SUBSCRIPTIONS) })).rejects.toMatchObject({
        code: -32602,
        data: { code: "validation_failed", details: { max: MAX_AI_SUBSCRIPTIONS } },
      });
      await client.unsubscribeResource({ uri: uri(0) });
      await client.subscribeResource({ uri: uri(MAX_AI_SUBSCRIPTIONS) });
      await expect(client.subscribeResource({ uri: "ai://summary/tag/x?limit=3" })).rejects.toMatchObject({ data: { code: "validation_failed" } });
      expect(fake.requests).toHaveLength(0);
    },
    SLOW,
  );
});
