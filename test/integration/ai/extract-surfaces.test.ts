import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { App } from "../../../src/app/context.ts";
import { TokenStore } from "../../../src/auth/tokens.ts";
import { loadConfig } from "../../../src/config/load.ts";
import { type RunningServer, startServer } from "../../../src/http/serve.ts";
import { vaultReindex } from "../../../src/maintenance/ops.ts";
import { type FakeAiServer, fakeChatEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";
import { ACTION_ITEMS, ANA, BO, extractReplies, MEETINGS } from "../../support/fake-extract.ts";
import { assertRestOutput, CheckedClient, invoke, warningCodes } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/** ai_extract over REST and MCP (Streamable HTTP) against the fake chat server. */
let fake: FakeAiServer;
let sb: Sandbox;
let ctx: App;
let server: RunningServer;
let admin: string;
let reader: string;

const KICKOFF = "Meetings/2026-Q2/04-01 Kickoff.md";
const SCOPE = { kind: "glob", path_glob: "Meetings/2026-Q2/**" };
const INTO = { scope: SCOPE, schema: ACTION_ITEMS, destination: "frontmatter", destination_key: "action_items" };

beforeAll(async () => {
  fake = startFakeAiServer();
  sb = sandbox(MEETINGS);
  Object.assign(sb.env, fakeChatEnv(fake));
  ctx = sb.context();
  await invoke(vaultReindex, ctx, {});
  server = await startServer(ctx, { host: "127.0.0.1", port: 0, notice: () => {}, watch: false });
  admin = loadConfig({ env: sb.env }).str("server.api_key")!;
  reader = new TokenStore(sb.dataDir).create("reader", ["vault:read"]).token;
});
beforeEach(() => fake.onChat(extractReplies));
afterEach(() => fake.reset());
afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
  fake?.stop();
});

async function post(body: unknown, token = admin) {
  const res = await fetch(`${server.url}/v1/ai/extract`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  assertRestOutput("POST", "/v1/ai/extract", json);
  return { status: res.status, body: json };
}

describe("POST /v1/ai/extract", () => {
  test("an invalid schema is 422 ai_schema_invalid with details.errors, and no model request is made", async () => {
    const { status, body } = await post({ scope: SCOPE, schema: { type: "object", properties: { n: { type: "number", exclusiveMaximum: 3 } } } });
    expect(status).toBe(422);
    expect(body.error.code).toBe("ai_schema_invalid");
    expect(body.error.details.errors).toEqual([{ path: "/properties/n/exclusiveMaximum", message: expect.stringContaining("not supported") }]);
    expect(fake.chats).toHaveLength(0);
  });

  test("results with the records that pass the schema; the one that fails is dropped with extract_invalid", async () => {
    const { status, body } = await post({ scope: SCOPE, schema: ACTION_ITEMS, cache: false });
    expect(status).toBe(200);
    expect(body.data.results.map((r: { path: string }) => r.path)).toEqual([KICKOFF, "Meetings/2026-Q2/04-08 Review.md"]);
    expect(warningCodes(body.data.warnings)).toContain("extract_invalid Meetings/2026-Q2/04-15 Retro.md");
  });

  test("a read token may preview and is forbidden to apply; frontmatter apply, then a repeat is apply_skipped_no_change", async () => {
    const preview = await post({ ...INTO, apply: true, dry_run: true }, reader);
    expect(preview.status).toBe(200);
    expect(preview.body.data.planned.map((p: { path: string }) => p.path)).toContain(KICKOFF);
    const refused = await post({ ...INTO, apply: true }, reader);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("forbidden");
    expect(readFileSync(join(sb.vault, KICKOFF), "utf8")).toBe(MEETINGS[KICKOFF]);

    const applied = await post({ ...INTO, apply: true, apply_mode: "merge" });
    expect(applied.status).toBe(200);
    expect(applied.body.data.applied.map((a: { path: string; key: string }) => [a.path, a.key])).toEqual([
      [KICKOFF, "action_items"],
      ["Meetings/2026-Q2/04-08 Review.md", "action_items"],
    ]);
    const repeat = await post({ ...INTO, apply: true, apply_mode: "merge" });
    expect(repeat.body.data.applied).toEqual([]);
    expect(warningCodes(repeat.body.data.warnings)).toContain(`apply_skipped_no_change ${KICKOFF}`);
  });
});

describe("MCP ai_extract", () => {
  async function connect(token = admin) {
    const client = new CheckedClient({ name: "extract-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    return client;
  }

  test("an invalid schema is an isError result with ai_schema_invalid and no model request; a valid one extracts", async () => {
    const client = await connect();
    try {
      const bad = await client.callTool({ name: "ai_extract", arguments: { scope: SCOPE, schema: { type: "string", format: "phone" } } });
      expect(bad.isError).toBe(true);
      expect(JSON.stringify(bad.content)).toContain("ai_schema_invalid");
      expect(fake.chats).toHaveLength(0);

      const ok = await client.callTool({ name: "ai_extract", arguments: { scope: { kind: "paths", paths: [KICKOFF] }, schema: ACTION_ITEMS, cache: false } });
      expect(ok.isError).toBeFalsy();
      const out = ok.structuredContent as { results: { data: unknown }[] };
      expect(out.results.map((r) => r.data)).toEqual([[ANA, BO]]);
    } finally {
      await client.close();
    }
  });

  test("a read token's catalogue shows ai_extract without the apply fields", async () => {
    const client = await connect(reader);
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === "ai_extract")!;
      const fields = Object.keys(tool.inputSchema.properties ?? {});
      expect(fields).toContain("schema");
      expect(fields).not.toContain("apply");
      expect(fields).not.toContain("if_match");
    } finally {
      await client.close();
    }
  });
});
