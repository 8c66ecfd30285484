import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { TokenStore } from "../../src/auth/tokens.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** MCP protocol utilities over Streamable HTTP (logging, completions, errors): the real server, the SDK's client. */

let sb: Sandbox;
let server: RunningServer;
let admin: string;
let reader: string;
const clients: { client: Client; transport: StreamableHTTPClientTransport }[] = [];

async function connect(token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const client = new Client({ name: "protocol", version: "1.0.0" });
  await client.connect(transport);
  clients.push({ client, transport });
  return client;
}

beforeAll(async () => {
  sb = sandbox({}, { fromDemo: true });
  server = await startServer(sb.context(), { host: "127.0.0.1", port: 0, notice: () => {}, watch: false });
  admin = loadConfig({ env: sb.env }).str("server.api_key")!;
  reader = new TokenStore(sb.dataDir).create("reader", ["vault:read"]).token;
});

afterEach(async () => {
  for (const { client, transport } of clients.splice(0)) {
    await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
  }
});

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

describe("instructions", () => {
  test("fit the session: its scopes, the vault's size, structuredContent and subscriptions", async () => {
    const writer = await connect(admin);
    const notes = ((await writer.callTool({ name: "note_list", arguments: { limit: 1 } })).structuredContent as { total: number }).total;
    const forWriter = writer.getInstructions()!;
    expect(forWriter).toContain(`${notes} notes`);
    expect(forWriter).toContain("structuredContent");
    expect(forWriter).toContain("resources/subscribe");
    expect(forWriter).toContain("if_match");

    const forReader = (await connect(reader)).getInstructions()!;
    expect(forReader).toContain(`${notes} notes`);
    expect(forReader).toContain("read-only");
    expect(forReader).not.toContain("etag");
    expect(forReader).not.toContain("if_match");
    expect(forReader).not.toContain("idempotency_key");
  });

  test("a type several tools take is given in full, described, in the first of them and named in the others (no $ref)", async () => {
    const writer = await connect(admin);
    const tools = (await writer.listTools()).tools;
    const schemaOf = (name: string) => JSON.stringify(tools.find((t) => t.name === name)?.inputSchema);
    expect(schemaOf("canvas_write")).toContain(
      '{"title":"CanvasNode","description":"A node.","type":"object","required":["id","x","y","width","height","type"]',
    );
    expect(schemaOf("canvas_write")).toContain('"backgroundStyle"');
    expect(schemaOf("canvas_patch")).toContain("A CanvasNode, as in canvas_write.");
    expect(JSON.stringify(tools)).not.toContain("$ref");
    expect(writer.getInstructions()).not.toContain("CanvasNode");
  });
});

describe("tools/call errors", () => {
  test("an unknown tool name is a JSON-RPC Invalid params error, not a tool result", async () => {
    const client = await connect(admin);
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  test("calls are validated against the full operation schema, not the compact one the catalogue shows", async () => {
    const client = await connect(admin);
    const read = (await client.listTools()).tools.find((t) => t.name === "note_read")!;
    expect(JSON.stringify(read.inputSchema)).not.toContain("maxLength");
    const tooLong = await client.callTool({ name: "note_read", arguments: { path: `${"a".repeat(2000)}.md` } });
    expect(tooLong.isError).toBe(true);
    expect(JSON.parse((tooLong.content as { text: string }[])[0]!.text).code).toBe("validation_failed");
    const extra = await client.callTool({ name: "note_read", arguments: { path: "Welcome.md", colour: "blue" } });
    expect(JSON.parse((extra.content as { text: string }[])[0]!.text).code).toBe("validation_failed");
  });
});

describe("tool result content", () => {
  const textOf = (r: Awaited<ReturnType<Client["callTool"]>>) => (r.content as { type: string; text: string }[])[0]!.text;

  test("a client that passes only content to its model still sees the note text and every hit", async () => {
    const client = await connect(reader);
    const read = await client.callTool({ name: "note_read", arguments: { path: "Projects/Apollo Launch.md" } });
    const note = read.structuredContent as { body: string; etag: string };
    expect(textOf(read)).toContain(note.body);
    expect(textOf(read)).toContain(note.etag);

    const search = await client.callTool({ name: "vault_search", arguments: { q: "launch", limit: 10 } });
    const hits = (search.structuredContent as { results: { chunk_id: string; heading: string | null; score: number }[] }).results;
    expect(hits.length).toBeGreaterThan(2);
    const lines = textOf(search).split("\n");
    for (const hit of hits) expect(lines.some((l) => l.includes(hit.chunk_id) && l.includes(String(hit.score)))).toBe(true);

    const list = await client.callTool({ name: "note_list", arguments: { path_glob: "People/**" } });
    const [summary, json] = textOf(list).split("\n");
    expect(summary).toContain("notes");
    expect(JSON.parse(json!)).toEqual(list.structuredContent);
  });
});

describe("logging", () => {
  test("notifications/message at or above the level set, with events but never the query", async () => {
    const client = await connect(admin);
    expect(client.getServerCapabilities()?.logging).toEqual({});
    const seen: { level: string; data: unknown }[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void seen.push({ level: n.params.level, data: n.params.data }));

    await client.setLoggingLevel("debug");
    await client.callTool({ name: "vault_search", arguments: { q: "rollback secret-words" } });
    await client.callTool({ name: "note_read", arguments: { path: "Nope.md" } });
    expect(seen.find((m) => m.level === "debug")?.data).toMatchObject({ event: "tool_call", tool: "vault_search" });
    expect(seen.find((m) => m.level === "warning")?.data).toMatchObject({ event: "tool_call", tool: "note_read", code: "not_found" });
    expect(JSON.stringify(seen)).not.toContain("secret-words");

    seen.length = 0;
    await client.setLoggingLevel("warning");
    await client.callTool({ name: "vault_search", arguments: { q: "apollo" } });
    await client.callTool({ name: "note_read", arguments: { path: "Still nope.md" } });
    expect(seen.map((m) => m.level)).toEqual(["warning"]);
  });
});

describe("completions", () => {
  const values = async (client: Client, ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string }, name: string, value: string) =>
    (await client.complete({ ref, argument: { name, value } })).completion.values;

  test("prompt dates, note paths and tags complete from the index", async () => {
    const client = await connect(reader);
    expect(client.getServerCapabilities()?.completions).toEqual({});

    const dates = await values(client, { type: "ref/prompt", name: "daily_note" }, "date", "2026-01");
    expect(dates).toEqual(expect.arrayContaining(["2026-01-05", "2026-01-06"]));
    for (const d of dates) expect(d.startsWith("2026-01")).toBe(true);
    const today = await values(client, { type: "ref/prompt", name: "weekly_review" }, "week_of", "");
    expect(today[0]).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    const paths = await values(client, { type: "ref/resource", uri: "vault://{+path}" }, "path", "Proj");
    expect(paths).toEqual(["Projects/Apollo Launch.md", "Projects/Beacon Research.md", "Projects/Project board.md"]);
    const backlinks = await values(client, { type: "ref/resource", uri: "vault://graph/backlinks/{+path}" }, "path", "People/A");
    expect(backlinks).toEqual(["People/Ada Lovelace.md"]);

    const tags = await values(client, { type: "ref/resource", uri: "vault://search{?q,mode,limit,path_glob,tag}" }, "tag", "#me");
    expect(tags).toEqual(expect.arrayContaining(["meeting", "meta/onboarding"]));
    for (const t of tags) expect(t.startsWith("me")).toBe(true);

    expect(await values(client, { type: "ref/prompt", name: "cleanup_unresolved_links" }, "dry_run", "f")).toEqual(["false"]);
  });

  test("an unknown prompt, template or argument completes to nothing", async () => {
    const client = await connect(reader);
    expect(await values(client, { type: "ref/prompt", name: "no_such_prompt" }, "x", "a")).toEqual([]);
    expect(await values(client, { type: "ref/prompt", name: "link_orphans" }, "limit", "1")).toEqual([]);
    expect(await values(client, { type: "ref/resource", uri: "vault://nothing{x}" }, "x", "")).toEqual([]);
  });
});
