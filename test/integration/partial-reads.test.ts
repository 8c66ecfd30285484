import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { etagOf } from "../../src/core/hash.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { McpHub } from "../../src/mcp/hub.ts";
import { createSession, type McpSession } from "../../src/mcp/session.ts";
import { noteRead } from "../../src/notes/ops.ts";
import { noteReadMany, READ_MANY } from "../../src/notes/read-many-ops.ts";
import { assertCliOutput, assertRestOutput, CheckedClient, commandOps, invoke, rejection } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** Line ranges on note_read and note_read_many's byte budget, on every surface. */

const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");

const numbered = (name: string, n: number) => `${Array.from({ length: n }, (_, i) => `${name} line ${i + 1}`).join("\n")}\n`;
const FILES: Record<string, string> = {
  "Long.md": numbered("long", 30),
  "Projects/Alpha.md": "---\nstatus: active\n---\n# Alpha\n\nThe first project.\n",
  "Projects/Beta.md": "# Beta\n\nÜmlauts count as two bytes: ü ö ä.\n",
  "Projects/Gamma.md": numbered("gamma", 12),
  "No newline.md": "one\ntwo",
  "Empty.md": "",
};

let sb: Sandbox;
let ctx: App;
let server: RunningServer;
let token: string;
let hub: McpHub;
let session: McpSession;
let client: CheckedClient;
let commands: Awaited<ReturnType<typeof commandOps>>;

beforeAll(async () => {
  sb = sandbox({ ...FILES, "pic.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]) });
  ctx = sb.context({ "server.read_workers": 1 });
  server = await startServer(ctx, { host: "127.0.0.1", port: 0, notice: () => {}, watch: false });
  await server.readers?.ready();
  token = loadConfig({ env: sb.env }).str("server.api_key")!;
  hub = new McpHub(ctx);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  session = await createSession(hub, { scopes: new Set(["vault:read"]) });
  await session.server.connect(serverSide);
  client = new CheckedClient({ name: "partial-reads", version: "0" });
  await client.connect(clientSide);
  commands = await commandOps();
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
  const text = await res.text();
  expect(text).not.toContain(sb.dir);
  const json = JSON.parse(text);
  assertRestOutput(method, path, json);
  return { status: res.status, etag: res.headers.get("etag"), body: json };
}

function cli(args: string[]) {
  const p = Bun.spawnSync(["bun", MAIN, ...args], { env: sb.env });
  const stdout = p.stdout.toString();
  if (stdout.startsWith("{")) assertCliOutput(commands, args, stdout);
  return { code: p.exitCode, stdout, stderr: p.stderr.toString() };
}

async function tool(name: string, args: Record<string, unknown>) {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError === true, data: r.structuredContent as any, text: JSON.stringify(r.content) };
}

const disk = (rel: string) => readFileSync(join(sb.vault, rel), "utf8");
const etagOfFile = (rel: string) => etagOf(readFileSync(join(sb.vault, rel)));

/** Lines from..from+count-1 of a file, cut independently of the code under test. */
function expectedLines(text: string, from: number, count?: number) {
  // An empty note has no lines; a final line break does not start one.
  const lines = text === "" ? [] : text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  const picked = lines.slice(from - 1, count === undefined ? undefined : from - 1 + count);
  const to = from - 1 + picked.length;
  const closing = to < lines.length || text.endsWith("\n") ? "\n" : "";
  return { from, to, total_lines: lines.length, text: picked.length ? picked.join("\n") + closing : "" };
}

describe("note_read with a line range", () => {
  test("from/lines return those lines, the total and the whole note's etag; every surface agrees", async () => {
    const want = expectedLines(FILES["Long.md"]!, 12, 29);
    expect(want.to).toBe(30);
    const direct = await invoke(noteRead, ctx, { path: "Long.md", from: 12, lines: 29 });
    expect(direct.range).toEqual(want);
    expect(direct.etag).toBe(etagOfFile("Long.md"));
    expect(direct.size).toBe(Buffer.byteLength(FILES["Long.md"]!));
    expect(direct.body).toBeUndefined();
    expect(direct.content).toBeUndefined();

    const viaRest = await rest("GET", "/v1/notes/Long.md?from=12&lines=29");
    expect(viaRest.status).toBe(200);
    expect(viaRest.etag).toBe(`"${etagOfFile("Long.md")}"`);
    expect(viaRest.body.data).toEqual(direct);

    const viaMcp = await tool("note_read", { path: "Long.md", from: 12, lines: 29 });
    expect(viaMcp.data).toEqual(direct);

    const viaCli = cli(["note", "get", "Long.md:12-40", "--json", "--no-refresh"]);
    expect(viaCli.code).toBe(0);
    expect(JSON.parse(viaCli.stdout)).toEqual({ ...direct, mtime: JSON.parse(viaCli.stdout).mtime });
  });

  test("edge lines: one line, to the end, a file without a final newline, an empty note", async () => {
    for (const [path, from, lines] of [
      ["Long.md", 1, 1],
      ["Long.md", 30, undefined],
      ["Long.md", 7, undefined],
      ["No newline.md", 2, 5],
      ["No newline.md", 1, 1],
      ["Empty.md", 1, 3],
    ] as const) {
      const r = await invoke(noteRead, ctx, { path, from, ...(lines ? { lines } : {}) });
      expect(r.range).toEqual(expectedLines(FILES[path]!, from, lines));
    }
  });

  test("the CLI's path:N reads from line N on; --raw prints exactly those lines", () => {
    const from = cli(["note", "get", "Long.md:28", "--json", "--no-refresh"]);
    expect(JSON.parse(from.stdout).range).toEqual(expectedLines(FILES["Long.md"]!, 28));
    const raw = cli(["note", "get", "Long.md:3-4", "--raw", "--no-refresh"]);
    expect(raw.code).toBe(0);
    expect(raw.stdout).toBe("long line 3\nlong line 4\n");
    const both = cli(["note", "get", "Long.md:3-4", "--from", "2", "--no-refresh"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("not both");
    const backwards = cli(["note", "get", "Long.md:9-3", "--no-refresh"]);
    expect(backwards.code).toBe(2);
  });

  test("a range past the end or with body/content is a typed error naming the line count", async () => {
    const past = await rejection(invoke(noteRead, ctx, { path: "Long.md", from: 31 }));
    expect(past.code).toBe("validation_failed");
    expect(past.details).toMatchObject({ field: "from", total_lines: 30 });
    const viaRest = await rest("GET", "/v1/notes/Long.md?from=31");
    expect(viaRest.status).toBe(400);
    expect(viaRest.body.error.details.total_lines).toBe(30);
    const withBody = await rejection(invoke(noteRead, ctx, { path: "Long.md", from: 2, include: ["body"] }));
    expect(withBody.details).toMatchObject({ field: "include" });
    const zero = await tool("note_read", { path: "Long.md", from: 0 });
    expect(zero.isError).toBe(true);
    // Other parts still come with a range.
    const outline = await invoke(noteRead, ctx, { path: "Projects/Alpha.md", from: 4, lines: 1, include: ["outline", "frontmatter"] });
    expect(outline.range?.text).toBe("# Alpha\n");
    expect(outline.outline).toEqual([{ level: 1, text: "Alpha", line: 4 }]);
    expect(outline.frontmatter).toEqual({ status: "active" });
  });
});

describe("note_read_many", () => {
  const ORDER = ["Projects/Gamma.md", "Long.md", "Projects/Alpha.md", "Projects/Beta.md"];
  const size = (p: string) => Buffer.byteLength(FILES[p]!);

  test("the byte budget holds for every budget: a prefix of the notes whole, the rest omitted with their sizes", async () => {
    const total = ORDER.reduce((n, p) => n + size(p), 0);
    for (let budget = 1; budget <= total + 5; budget += 7) {
      const r = await invoke(noteReadMany, ctx, { paths: ORDER, budget_bytes: budget });
      expect(r.used_bytes).toBeLessThanOrEqual(budget);
      // Notes come whole, in the caller's order, until the next one would pass the budget.
      let fitting = 0;
      for (let used = 0; fitting < ORDER.length && used + size(ORDER[fitting]!) <= budget; fitting++) used += size(ORDER[fitting]!);
      expect(r.notes.map((n) => n.path)).toEqual(ORDER.slice(0, fitting));
      expect(r.omitted).toEqual(ORDER.slice(fitting).map((path) => ({ path, size: size(path) })));
      for (const n of r.notes) {
        expect(n.content).toBe(disk(n.path));
        expect(n.etag).toBe(etagOfFile(n.path));
        expect(n.truncated).toBeUndefined();
      }
      expect(r.used_bytes).toBe(r.notes.reduce((n, note) => n + Buffer.byteLength(note.content), 0));
      expect(r).toMatchObject({ matched: ORDER.length, budget_bytes: budget, errors: [] });
      // With truncate, at most one more note comes, cut at a line break, and the budget still holds.
      const cut = await invoke(noteReadMany, ctx, { paths: ORDER, budget_bytes: budget, truncate: true });
      expect(cut.used_bytes).toBeLessThanOrEqual(budget);
      expect(cut.notes.slice(0, fitting)).toEqual(r.notes);
      expect(cut.notes.length - fitting).toBeLessThanOrEqual(1);
      for (const n of cut.notes.slice(fitting))
        expect({ truncated: n.truncated, prefix: disk(n.path).startsWith(n.content) }).toEqual({ truncated: true, prefix: true });
      expect([...cut.notes, ...cut.omitted].map((n) => n.path)).toEqual(ORDER);
    }
  });

  test("truncate cuts the note that passes the budget at a line break; note_read goes on from there", async () => {
    const budget = size("Projects/Gamma.md") + 100;
    const r = await invoke(noteReadMany, ctx, { paths: ORDER, budget_bytes: budget, truncate: true });
    expect(r.used_bytes).toBeLessThanOrEqual(budget);
    const [whole, cut] = r.notes;
    expect(whole!.content).toBe(disk("Projects/Gamma.md"));
    expect(cut).toMatchObject({ path: "Long.md", truncated: true, etag: etagOfFile("Long.md"), size: size("Long.md") });
    expect(Buffer.byteLength(cut!.content)).toBeLessThanOrEqual(100);
    expect(disk("Long.md").startsWith(cut!.content)).toBe(true);
    expect(cut!.content.endsWith("\n")).toBe(true);
    expect(cut!.range).toEqual({ from: 1, to: cut!.content.split("\n").length - 1, total_lines: 30 });
    const rest = await invoke(noteRead, ctx, { path: "Long.md", from: cut!.range!.to + 1 });
    expect(cut!.content + rest.range!.text).toBe(disk("Long.md"));
    expect(r.omitted.map((o) => o.path)).toEqual(["Projects/Alpha.md", "Projects/Beta.md"]);
    // A budget the whole notes fill exactly leaves nothing to cut.
    const full = await invoke(noteReadMany, ctx, { paths: ORDER, budget_bytes: size("Projects/Gamma.md"), truncate: true });
    expect(full.notes.map((n) => n.path)).toEqual(["Projects/Gamma.md"]);
    expect(full.used_bytes).toBe(size("Projects/Gamma.md"));
    expect(full.omitted.map((o) => o.path)).toEqual(ORDER.slice(1));
    // Not even one line fits: the note is omitted, not returned empty.
    const tiny = await invoke(noteReadMany, ctx, { paths: ["Long.md"], budget_bytes: 5, truncate: true });
    expect(tiny.notes).toEqual([]);
    expect(tiny.omitted).toEqual([{ path: "Long.md", size: size("Long.md") }]);
  });

  test("missing, escaping and non-note paths are reported per item; the call succeeds", async () => {
    const r = await invoke(noteReadMany, ctx, { paths: ["Nope.md", "Projects/Beta.md", "../outside.md", "pic.png", "Projects/Beta.md"] });
    expect(r.notes.map((n) => n.path)).toEqual(["Projects/Beta.md"]);
    expect(r.errors.map((e) => [e.path, e.code])).toEqual([
      ["Nope.md", "not_found"],
      ["../outside.md", "path_invalid"],
      ["pic.png", "path_invalid"],
    ]);
    expect(r.matched).toBe(4);
  });

  test("a glob reads the indexed notes it matches, in path order", async () => {
    await invoke(noteRead, ctx, { path: "Long.md" });
    const r = await invoke(noteReadMany, ctx, { glob: "Projects/**" });
    expect(r.notes.map((n) => n.path)).toEqual(["Projects/Alpha.md", "Projects/Beta.md", "Projects/Gamma.md"]);
    const none = await invoke(noteReadMany, ctx, { glob: "Nothing/**" });
    expect(none).toMatchObject({ notes: [], omitted: [], errors: [], matched: 0 });
  });

  test("bad input is a typed error: neither or both of paths and glob, a budget over the maximum, too many paths", async () => {
    for (const input of [
      {},
      { paths: ["Long.md"], glob: "**" },
      { paths: ["Long.md"], budget_bytes: READ_MANY.maxBudget + 1 },
      { paths: Array.from({ length: READ_MANY.maxPaths + 1 }, (_, i) => `n${i}.md`) },
    ]) {
      const e = await rejection(invoke(noteReadMany, ctx, input));
      expect(e.code).toBe("validation_failed");
    }
  });

  test("REST (on a reader worker), MCP and the CLI give the same result", async () => {
    const input = { paths: ORDER, budget_bytes: 400 };
    const direct = await invoke(noteReadMany, ctx, input);
    expect(direct.omitted.length).toBeGreaterThan(0);
    const before = server.readers!.answered;
    const viaRest = await rest("POST", "/v1/notes/read-many", input);
    expect(server.readers!.answered).toBe(before + 1);
    expect(viaRest.body.data).toEqual(direct);
    const viaMcp = await tool("note_read_many", input);
    expect(viaMcp.data).toEqual(direct);
    const viaCli = cli(["note", "get-many", ...ORDER, "--budget-bytes", "400", "--json", "--no-refresh"]);
    expect(viaCli.code).toBe(0);
    expect(JSON.parse(viaCli.stdout)).toEqual(direct);
  });
});
