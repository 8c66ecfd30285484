import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { McpHub } from "../../src/mcp/hub.ts";
import { createSession, type McpSession } from "../../src/mcp/session.ts";
import { assertRestOutput, CheckedClient } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** base_query over REST, the CLI and MCP on the demo vault: the same rows everywhere, typed errors, live results. */

const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");

let sb: Sandbox;
let ctx: App;
let server: RunningServer;
let token: string;
let hub: McpHub;
let session: McpSession;
let client: CheckedClient;

beforeAll(async () => {
  sb = sandbox({}, { fromDemo: true });
  ctx = sb.context();
  server = await startServer(ctx, { host: "127.0.0.1", port: 0, notice: () => {} });
  token = loadConfig({ env: sb.env }).str("server.api_key")!;
  hub = new McpHub(ctx);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  session = await createSession(hub, { scopes: new Set(["vault:read", "vault:write"]) });
  await session.server.connect(serverSide);
  client = new CheckedClient({ name: "bases", version: "0" });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client?.close();
  await session?.close();
  hub?.close();
  await server?.stop();
  sb?.cleanup();
});

async function rest(method: "GET" | "POST", path: string, body?: unknown) {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json: any = await res.json();
  expect(JSON.stringify(json)).not.toContain(sb.dir);
  assertRestOutput(method, path, json);
  return { status: res.status, body: json };
}

function cli(args: string[]) {
  const p = Bun.spawnSync(["bun", MAIN, ...args], { env: sb.env });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

/** What every surface must agree on: paths, groups and cells (not the per-call `days_left`, which depends on today). */
const essence = (o: { rows: { path: string; group: number | null; cells: Record<string, unknown> }[]; groups: unknown; total: number }) => ({
  total: o.total,
  groups: o.groups,
  rows: o.rows.map((r) => ({ path: r.path, group: r.group, cells: Object.fromEntries(Object.entries(r.cells).filter(([id]) => id !== "formula.days_left")) })),
});

describe("the same query on every surface", () => {
  test("REST GET, REST POST (inline), CLI --json and the MCP tool give the same rows", async () => {
    const get = await rest("GET", "/v1/bases/Projects.base/query?view=By%20status");
    expect(get.status).toBe(200);
    const rows = essence(get.body.data);
    expect(rows.rows.map((r) => r.path)).toEqual(["Projects/Apollo Launch.md", "Projects/Beacon Research.md"]);
    expect(get.body.data.groups.map((g: { key: { value: string } }) => g.key.value)).toEqual(["active", "paused"]);

    const text = await Bun.file(join(sb.vault, "Projects.base")).text();
    const post = await rest("POST", "/v1/bases/query", { base: text, view: "By status" });
    expect(essence(post.body.data)).toEqual(rows);

    const out = cli(["base", "query", "Projects.base", "--view", "By status", "--json"]);
    expect(out.code).toBe(0);
    expect(essence(JSON.parse(out.stdout))).toEqual(rows);

    const tool = await client.callTool({ name: "base_query", arguments: { path: "Projects.base", view: "By status" } });
    expect(essence(tool.structuredContent as Parameters<typeof essence>[0])).toEqual(rows);

    const resource = await client.readResource({ uri: "vault://base/Projects.base?view=By%20status" });
    expect(essence(JSON.parse((resource.contents[0] as { text: string }).text))).toEqual(rows);
  });

  test("a note's base block: this is the note", async () => {
    const r = await rest("GET", `/v1/bases/${encodeURIComponent("Projects")}/${encodeURIComponent("Project board.md")}/query`);
    expect(r.body.data.path).toBe("Projects/Project board.md");
    expect(r.body.data.rows.map((x: { path: string }) => x.path)).toEqual(["Projects/Apollo Launch.md", "Projects/Beacon Research.md"]);
  });

  test("the CLI prints a table on request, and CSV", () => {
    const table = cli(["base", "query", "Projects.base", "--view", "By status", "--format", "table"]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[1]).toMatch(/^file.basename\s+Owner$/);
    expect(lines.slice(3)).toEqual(["active (1)", "Apollo Launch    Ada Lovelace", "paused (1)", "Beacon Research"]);
    const csv = cli(["base", "query", "Projects.base", "--view", "By status", "--format", "csv"]);
    expect(csv.stdout.trimEnd().split("\n")).toEqual(["file.basename,Owner", "Apollo Launch,Ada Lovelace", "Beacon Research,"]);
  });
});

describe("note_list where", () => {
  const paths = (o: { notes: { path: string }[] }) => o.notes.map((n) => n.path);

  test("a date comparison, a tag and a property on REST, CLI and MCP, with the other filters and paging", async () => {
    const where = 'due < date("2026-04-01") || (file.hasTag("project") && status != "active")';
    const expected = ["Projects/Apollo Launch.md", "Projects/Beacon Research.md"];
    const r = await rest("GET", `/v1/notes?where=${encodeURIComponent(where)}`);
    expect(r.status).toBe(200);
    expect(paths(r.body.data)).toEqual(expected);
    expect(r.body.data.total).toBe(2);

    const out = cli(["note", "list", "--where", where, "--json"]);
    expect(out.code).toBe(0);
    expect(paths(JSON.parse(out.stdout))).toEqual(expected);

    const tool = await client.callTool({ name: "note_list", arguments: { where } });
    expect(paths(tool.structuredContent as { notes: { path: string }[] })).toEqual(expected);

    // With a tag filter and a page of one.
    const page = await rest("GET", `/v1/notes?where=${encodeURIComponent(where)}&tag=project%2Fresearch&limit=1`);
    expect(paths(page.body.data)).toEqual(["Projects/Beacon Research.md"]);
    expect(page.body.data.next_cursor).toBeNull();
    const first = await rest("GET", `/v1/notes?where=${encodeURIComponent(where)}&limit=1`);
    expect(paths(first.body.data)).toEqual(["Projects/Apollo Launch.md"]);
    const second = await rest("GET", `/v1/notes?where=${encodeURIComponent(where)}&limit=1&cursor=${first.body.data.next_cursor}`);
    expect(paths(second.body.data)).toEqual(["Projects/Beacon Research.md"]);
  });

  test("today() and durations: a due date within a day of where it falls from today", async () => {
    const offset = Math.round((new Date(2026, 2, 31).getTime() - new Date().setHours(0, 0, 0, 0)) / 86_400_000);
    const day = (n: number) => (n >= 0 ? `today() + "${n}d"` : `today() - "${-n}d"`);
    const around = await rest("GET", `/v1/notes?where=${encodeURIComponent(`due >= ${day(offset - 1)} && due <= ${day(offset + 1)}`)}`);
    expect(paths(around.body.data)).toEqual(["Projects/Apollo Launch.md"]);
    const after = await rest("GET", `/v1/notes?where=${encodeURIComponent(`due > ${day(offset + 1)}`)}`);
    expect(paths(after.body.data)).toEqual([]);
  });

  test("a bad expression is a 400 with its position on every surface; bounds are 400", async () => {
    const r = await rest("GET", `/v1/notes?where=${encodeURIComponent("status == = 1")}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: "validation_failed", details: { field: "where", position: 11 } });
    expect(r.body.error.message).toContain("at character 11");
    expect((await rest("GET", `/v1/notes?where=${encodeURIComponent("nope(1)")}`)).body.error.details).toMatchObject({ position: 1 });
    expect((await rest("GET", `/v1/notes?where=${encodeURIComponent("formula.x > 1")}`)).status).toBe(400);
    expect((await rest("GET", `/v1/notes?where=${encodeURIComponent(`${"(".repeat(100)}1${")".repeat(100)}`)}`)).status).toBe(400);
    expect((await rest("GET", `/v1/notes?where=${"1".repeat(10_001)}`)).status).toBe(400);

    const out = cli(["note", "list", "--where", "status ==", "--json"]);
    expect(out.code).toBe(2);
    expect(out.stderr + out.stdout).toContain("where");
    const tool = await client.callTool({ name: "note_list", arguments: { where: "status ==" } });
    expect(tool.isError).toBe(true);
  });
});

describe("typed errors, never a 500", () => {
  test("a malformed base is 422 parse_failed with line, column and key path", async () => {
    const r = await rest("POST", "/v1/bases/query", { base: "views:\n  - name: x\n    sort: nope\n" });
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({ code: "parse_failed", details: { key_path: "views[0].sort", line: 3, column: 11 } });
    const expr = await rest("POST", "/v1/bases/query", { base: "filters: 'status ==='" });
    expect(expr.status).toBe(422);
    expect(expr.body.error.details).toMatchObject({ key_path: "filters", line: 1 });
  });

  test("bounds are 400: expression length and nesting, page size, base size", async () => {
    expect((await rest("POST", "/v1/bases/query", { base: `filters: '${"(".repeat(100)}1${")".repeat(100)}'` })).status).toBe(400);
    expect((await rest("POST", "/v1/bases/query", { base: `filters: '${"1+".repeat(6000)}1'` })).status).toBe(400);
    expect((await rest("GET", "/v1/bases/Projects.base/query?limit=5000")).status).toBe(400);
    expect((await rest("POST", "/v1/bases/query", { base: "x".repeat(1_000_001) })).status).toBeOneOf([400, 413]);
  });

  test("unknown views and missing files are 404; a file that is no base is 400; neither path nor base is 400", async () => {
    const view = await rest("GET", "/v1/bases/Projects.base/query?view=Nope");
    expect(view.status).toBe(404);
    expect(view.body.error.details.views).toEqual(["Projects", "By status"]);
    expect((await rest("GET", "/v1/bases/Nope.base/query")).status).toBe(404);
    expect((await rest("GET", "/v1/bases/Welcome.md/query")).status).toBe(404);
    expect((await rest("GET", "/v1/bases/Attachments/diagram.png/query")).status).toBe(400);
    expect((await rest("GET", "/v1/bases/..%2F..%2Fetc%2Fpasswd/query")).status).toBeOneOf([400, 404]);
    expect((await rest("POST", "/v1/bases/query", {})).status).toBe(400);
  });

  test("an expression that fails at run time is an error cell, not a failed query", async () => {
    const r = await rest("POST", "/v1/bases/query", {
      base: 'filters: status == "active"\nformulas:\n  bad: status * 2\nviews:\n  - name: t\n    order: [formula.bad]\n    limit: 1\n',
    });
    expect(r.status).toBe(200);
    expect(r.body.data.rows[0].cells["formula.bad"]).toEqual({ type: "error", value: "Cannot apply '*' to string and number" });
  });
});

describe("vault://base subscriptions", () => {
  test("fire after an edit that changes the result, and not after one that does not", async () => {
    const seen: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void seen.push(n.params.uri));
    const uri = "vault://base/Projects.base?view=By%20status";
    await client.subscribeResource({ uri });

    // Body text is not in the result: no notification.
    sb.write("Projects/Beacon Research.md", "---\ntags:\n  - project/research\nstatus: paused\n---\n# Beacon Research\n\nMore words.\n");
    await ctx.updateIndex({ paths: ["Projects/Beacon Research.md"] });
    await Bun.sleep(100);
    expect(seen).toEqual([]);

    // A status change moves the note to another group.
    sb.write("Projects/Beacon Research.md", "---\ntags:\n  - project/research\nstatus: active\n---\n# Beacon Research\n\nMore words.\n");
    await ctx.updateIndex({ paths: ["Projects/Beacon Research.md"] });
    await Bun.sleep(100);
    expect(seen).toEqual([uri]);
  });
});
