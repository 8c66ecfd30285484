import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LATEST_PROTOCOL_VERSION, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { OPERATIONS as ALL_OPERATIONS } from "../../src/app/registry.ts";
import { VERSION } from "../../src/core/version.ts";

/** The tools of a vault without a model: AI tools are listed only with one (test/e2e/ai.test.ts covers them). */
const OPERATIONS = ALL_OPERATIONS.filter((op) => !op.ai);

import { BIN } from "../support/binary.ts";
import { CheckedClient } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** Resource contents are text or blob; tests read whichever they expect. */
const anyContent = (c: unknown) => c as { uri: string; mimeType?: string; text?: string; blob?: string };

/** End-to-end: the compiled binary as an agent spawns it, driven by the SDK's own client. Build first. */

/** The read tools of the mapping table (docs/contracts.md, Operations). */
const SEED_READ_TOOLS = [
  "vault_status",
  "note_read",
  "note_list",
  "note_outline",
  "note_exists",
  "vault_search",
  "link_backlinks",
  "link_forward",
  "link_unresolved",
  "link_orphans",
  "tag_list",
  "tag_notes",
];

/** A valid input for every tool. A new operation needs a line here: every tool is called. */
const VALID: Record<string, Record<string, unknown>> = {
  vault_status: {},
  note_read: { path: "Projects/Apollo Launch.md", include: ["frontmatter", "outline", "links", "backlinks", "tasks"] },
  note_read_many: { paths: ["Welcome.md", "Projects/Apollo Launch.md"], budget_bytes: 4000 },
  note_list: { path_glob: "Projects/**", limit: 5 },
  note_outline: { path: "Welcome.md" },
  note_exists: { path: "Nope.md" },
  note_capture: { text: "captured over stdio", title: "Stdio capture" },
  daily_note: { date: "2026-01-05" },
  vault_search: { q: "rollback runbook", limit: 3 },
  link_backlinks: { path: "People/Ada Lovelace.md" },
  link_forward: { path: "Projects/Apollo Launch.md" },
  link_unresolved: { limit: 5 },
  link_broken_anchors: { limit: 5 },
  activate_context: { path: "Projects/Apollo Launch.md", max_tokens: 1000 },
  link_orphans: {},
  tag_list: {},
  tag_notes: { tag: "#person" },
  vault_reindex: {},
  vault_config_get: {},
  vault_list: {},
  vault_config_set: { key: "search.default_limit", value: 12 },
  vault_validate_frontmatter: { path_glob: "**" },
  related: { id: "Projects/Apollo Launch.md", limit: 3 },
  chunk_get: { id: "Reference/Runbook.md#1" },
  attachment_get: { path: "Attachments/diagram.png" },
  document_read: { path: "Attachments/Paper.pdf", from: 2, to: 3 },
  attachment_write: { name: "MCP upload.png", data_base64: "iVBORw0KGgo=", note: "Inbox.md" },
  base_query: { path: "Projects.base", view: "By status" },
  // Writes, in registry order: create, patch, then delete the same scratch note.
  note_write: { path: "Inbox/MCP note.md", body: "# MCP note\n\n## Log\n\nfirst\n" },
  note_patch: { path: "Inbox/MCP note.md", ops: [{ op: "append_to_section", heading: "Log", markdown: "second" }] },
  note_delete: { path: "Inbox/MCP note.md" },
  note_move: { from: "Daily/2026-01-06.md", to: "Daily/Archive/2026-01-06.md", dry_run: true },
  tag_rename: { from: "person", to: "people", dry_run: true },
  canvas_read: { path: "Demo.canvas" },
  canvas_write: { path: "MCP.canvas", canvas: { nodes: [], edges: [] } },
  canvas_patch: { path: "MCP.canvas", ops: [{ op: "add_node", node: { id: "n1", type: "text", text: "hi", x: 0, y: 0, width: 200, height: 80 } }] },
};

let sb: Sandbox;
const clients: CheckedClient[] = [];

async function connect(flags: string[] = [], env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({ command: BIN, args: ["mcp", ...flags], env: { ...sb.env, ...env }, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += String(d)));
  const client = new CheckedClient({ name: "e2e", version: "1.0.0" });
  const errors: Error[] = [];
  client.onerror = (e) => void errors.push(e); // a non-protocol line on stdout would land here
  await client.connect(transport);
  clients.push(client);
  return { client, errors, stderr: () => stderr };
}

const errorOf = (r: any) => JSON.parse(r.content[0].text) as { code: string; message: string; details?: unknown };

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/indx is missing: run `bun run build` first");
  sb = sandbox({}, { fromDemo: true });
  // A PDF for document_read: the demo vault has none.
  sb.write("Attachments/Paper.pdf", readFileSync(join(import.meta.dir, "..", "..", "fixtures", "documents", "pdfjs", "knockout_groups_test.pdf")));
});

// Each test stops the servers it started: several indx processes watching one vault race to
// index the same change, and only the one that writes it sees the change (and notifies).
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
});

afterAll(() => sb?.cleanup());

describe("indx mcp catalogue", () => {
  test("prints the catalogue's size in tokens for the flags' scopes", () => {
    const run = (flags: string[]) => Bun.spawnSync([BIN, "mcp", "catalogue", "--json", ...flags], { env: sb.env, stdout: "pipe", stderr: "pipe" });
    const admin = JSON.parse(run(["--admin"]).stdout.toString());
    expect(admin.tools).toBe(OPERATIONS.length);
    expect(admin.tokens).toBeLessThanOrEqual(5430); // docs/decisions.md, "The MCP catalogue budget"
    expect(admin.tokens_with_output_schema).toBeGreaterThan(admin.tokens);
    const readOnly = JSON.parse(run(["--read-only"]).stdout.toString());
    expect(readOnly.tools).toBe(OPERATIONS.filter((o) => o.scope === "vault:read").length);
    expect(readOnly.tokens).toBeLessThan(admin.tokens);
  });
});

describe("indx mcp over stdio", () => {
  test("initialize: identity, instructions, capabilities (the index is built on first start)", async () => {
    const { client, errors } = await connect();
    expect(client.getServerVersion()).toEqual({ name: "indx", version: VERSION });
    expect(client.getInstructions()).toContain("pass the etag back as if_match");
    const caps = client.getServerCapabilities()!;
    expect(caps.tools).toBeTruthy();
    expect(caps.prompts).toBeTruthy();
    expect(caps.resources).toEqual({ subscribe: true, listChanged: true });
    // No index existed: the first call waits for the build instead of failing.
    const r = await client.callTool({ name: "vault_search", arguments: { q: "rollback runbook" } });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as any).results[0].path).toBe("Reference/Runbook.md");
    expect((r.content as any)[0].text).toContain("Reference/Runbook.md");
    expect(errors).toEqual([]);
  });

  test("tools/list: every read operation, named as in docs/contracts.md, with schemas and annotations", async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of SEED_READ_TOOLS) expect(names).toContain(n);
    for (const op of OPERATIONS.filter((o) => o.scope === "vault:read")) expect(names).toContain(op.name);
    for (const t of tools) {
      const op = OPERATIONS.find((o) => o.name === t.name)!;
      expect(t.description).toBe(op.description);
      expect(t.title).toBe(op.title);
      expect(t.inputSchema.type).toBe("object");
      expect(t.outputSchema?.type).toBe("object");
      expect(t.annotations?.readOnlyHint).toBe(op.safe);
      expect(t.annotations?.openWorldHint).toBe(false);
    }
  });

  test("every tool answers valid input with structured output and invalid input with a typed error", async () => {
    const { client, errors } = await connect(["--admin"]);
    const { tools } = await client.listTools(); // also arms the client's outputSchema validation
    expect(tools.map((t) => t.name).sort()).toEqual(OPERATIONS.map((o) => o.name).sort());
    for (const tool of tools) {
      const valid = VALID[tool.name];
      if (!valid) throw new Error(`add a valid input for ${tool.name} to VALID in this test`);
      const ok = await client.callTool({ name: tool.name, arguments: valid });
      if (ok.isError) throw new Error(`${tool.name} failed: ${(ok.content as any)[0].text}`);
      expect(ok.structuredContent).toBeTruthy();
      expect((ok.content as any)[0].type).toBe("text");
      expect((ok.content as any)[0].text.length).toBeGreaterThan(0);

      const unknownKey = await client.callTool({ name: tool.name, arguments: { ...valid, no_such_option: true } });
      expect(unknownKey.isError).toBe(true);
      expect(errorOf(unknownKey).code).toBe("validation_failed");

      const props = (tool.inputSchema.properties ?? {}) as Record<string, { type?: string }>;
      if (props.path) {
        const escaped = await client.callTool({ name: tool.name, arguments: { ...valid, path: "../outside.md" } });
        expect(escaped.isError).toBe(true);
        expect(errorOf(escaped).code).toBe("path_invalid");
      }
      const required = (tool.inputSchema.required ?? []) as string[];
      if (required.length) {
        const missing = await client.callTool({ name: tool.name, arguments: {} });
        expect(missing.isError).toBe(true);
        expect(errorOf(missing).code).toBe("validation_failed");
      }
      const firstNumber = Object.entries(props).find(([, s]) => s.type === "integer")?.[0];
      if (firstNumber) {
        const wrongType = await client.callTool({ name: tool.name, arguments: { ...valid, [firstNumber]: "many" } });
        expect(wrongType.isError).toBe(true);
        expect(errorOf(wrongType).code).toBe("validation_failed");
      }
    }
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toMatchObject({ code: -32602 });
    const notFound = await client.callTool({ name: "note_read", arguments: { path: "Nope.md" } });
    expect(errorOf(notFound).code).toBe("not_found");
    expect(errors).toEqual([]);
  });

  test("vault_reindex streams progress to a caller with a progressToken (none lost before the result)", async () => {
    const { client } = await connect(["--admin"]);
    const seen: { progress: number; total?: number }[] = [];
    const r = await client.callTool({ name: "vault_reindex", arguments: { rebuild: true } }, undefined, { onprogress: (p) => void seen.push(p) });
    expect(r.isError).toBeFalsy();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[seen.length - 1]!.progress).toBe(seen[seen.length - 1]!.total!);
  });

  test("resources: list, a note (spaces round-trip), a search URI, the graph, an attachment", async () => {
    const { client } = await connect();
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain("vault://graph");
    expect(uris).toContain("vault://tags");
    const apollo = resources.find((r) => r.name === "Projects/Apollo Launch.md")!;
    expect(apollo.uri).toBe("vault://Projects/Apollo%20Launch.md");
    const note = await client.readResource({ uri: apollo.uri });
    expect(note.contents.map(anyContent)[0]!.mimeType).toBe("text/markdown");
    expect(note.contents.map(anyContent)[0]!.text).toContain("title: Apollo Launch");

    const search = await client.readResource({ uri: "vault://search?q=rollback%20runbook&mode=lexical" });
    expect(JSON.parse(search.contents.map(anyContent)[0]!.text as string).results[0].path).toBe("Reference/Runbook.md");

    const graph = JSON.parse((await client.readResource({ uri: "vault://graph" })).contents.map(anyContent)[0]!.text as string);
    expect(graph.nodes.map((n: any) => n.id)).toContain("Projects/Apollo Launch.md");
    expect(graph.edges.length).toBeGreaterThan(0);
    for (const e of graph.edges) expect(graph.nodes.some((n: any) => n.id === e.target)).toBe(true);

    const backlinks = JSON.parse(
      (await client.readResource({ uri: "vault://graph/backlinks/People/Ada%20Lovelace.md" })).contents.map(anyContent)[0]!.text as string,
    );
    expect(backlinks.count).toBeGreaterThan(0);
    const tags = JSON.parse((await client.readResource({ uri: "vault://tags" })).contents.map(anyContent)[0]!.text as string);
    expect(tags.tags.length).toBeGreaterThan(0);

    const meta = await client.readResource({ uri: "vault://Attachments/diagram.png" });
    expect(JSON.parse(meta.contents.map(anyContent)[0]!.text as string).mime).toBe("image/png");
    const bytes = await client.readResource({ uri: "vault://Attachments/diagram.png?download=1" });
    expect(bytes.contents.map(anyContent)[0]!.mimeType).toBe("image/png");
    expect(
      Buffer.from(bytes.contents.map(anyContent)[0]!.blob as string, "base64")
        .subarray(1, 4)
        .toString(),
    ).toBe("PNG");

    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toContain("vault://{+path}");
    expect(templates).toContain("vault://graph/backlinks/{+path}");

    await expect(client.readResource({ uri: "vault://Nope.md" })).rejects.toMatchObject({ code: -32002 });
    await expect(client.readResource({ uri: "vault://..%2F..%2Fetc/passwd" })).rejects.toMatchObject({ code: -32602 });
    await expect(client.readResource({ uri: "vault://../secret.md" })).rejects.toMatchObject({ code: -32602 });
    await expect(client.readResource({ uri: "vault://search?mode=lexical" })).rejects.toMatchObject({ code: -32602 });
  });

  test("prompts: list and get, with a recommended tool allow-list", async () => {
    const { client } = await connect();
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(["cleanup_unresolved_links", "daily_note", "link_orphans", "vault_summary", "weekly_review"]);
    for (const p of prompts) {
      expect(p.description).toBeTruthy();
      expect(Array.isArray(p._meta?.["indx/allowed_tools"])).toBe(true);
    }
    const daily = await client.getPrompt({ name: "daily_note", arguments: { date: "2026-01-07" } });
    const text = (daily.messages[0]!.content as any).text as string;
    expect(text).toContain("Daily/2026-01-07.md");
    expect(text).toContain(`daily_note with date "2026-01-07"`);
    expect(daily._meta?.["indx/allowed_tools"]).toContain("note_read");
    const weekly = await client.getPrompt({ name: "weekly_review", arguments: { week_of: "2026-01-07" } });
    expect((weekly.messages[0]!.content as any).text).toContain("2026-W02");
    for (const p of prompts) {
      const got = await client.getPrompt({ name: p.name, arguments: {} });
      expect(got.messages.length).toBeGreaterThan(0);
    }
    await expect(client.getPrompt({ name: "daily_note", arguments: { date: "yesterday" } })).rejects.toMatchObject({ code: -32602 });
    await expect(client.getPrompt({ name: "no_such_prompt" })).rejects.toMatchObject({ code: -32602 });
  });

  test("the stdio server watches the vault: an editor's write reaches a subscription", async () => {
    const { client } = await connect();
    const seen: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void seen.push(n.params.uri));
    await client.subscribeResource({ uri: "vault://Daily/**" });
    await client.callTool({ name: "vault_status", arguments: {} }); // the index is ready, the watcher runs
    sb.write("Daily/2026-01-08.md", "# 2026-01-08\n\n- [ ] water the plants\n");
    const end = Date.now() + 5000;
    while (!seen.includes("vault://Daily/2026-01-08.md") && Date.now() < end) await Bun.sleep(50);
    expect(seen).toContain("vault://Daily/2026-01-08.md");
    const found = await client.callTool({ name: "vault_search", arguments: { q: "water plants" } });
    expect((found.structuredContent as any).results.map((r: any) => r.path)).toContain("Daily/2026-01-08.md");
  });

  test("--read-only hides write and admin tools; default hides admin; --admin shows them", async () => {
    const ro = await connect(["serve", "--stdio", "--read-only"]);
    const roNames = (await ro.client.listTools()).tools.map((t) => t.name);
    for (const op of OPERATIONS) expect(roNames.includes(op.name)).toBe(op.scope === "vault:read");
    const refused = await ro.client.callTool({ name: "vault_reindex", arguments: {} });
    expect(refused.isError).toBe(true);
    expect(errorOf(refused).code).toBe("forbidden");

    const def = await connect(["serve", "--stdio"]);
    const defNames = (await def.client.listTools()).tools.map((t) => t.name);
    for (const op of OPERATIONS) expect(defNames.includes(op.name)).toBe(op.scope !== "vault:admin");

    const adm = await connect(["--admin"]);
    expect((await adm.client.listTools()).tools.map((t) => t.name)).toContain("vault_config_get");
  });

  test("stdout carries nothing but JSON-RPC, even with logs on and bad lines in", async () => {
    const proc = Bun.spawn([BIN, "mcp"], { env: { ...sb.env, INDX_LOG: "on" }, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const send = (m: unknown) => proc.stdin.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    proc.stdin.write("this is not json\n");
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "vault_search", arguments: { q: "launch" } } });
    send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "note_read", arguments: { path: "/etc/passwd" } } });
    send({ jsonrpc: "2.0", id: 4, method: "resources/read", params: { uri: "vault://Welcome.md" } });
    await Bun.sleep(1500);
    proc.stdin.end();
    const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    expect(await proc.exited).toBe(0);
    const lines = out.split("\n").filter(Boolean);
    const messages = lines.map((l) => JSON.parse(l));
    for (const m of messages) expect(m.jsonrpc).toBe("2.0");
    const byId = new Map(messages.filter((m) => m.id !== undefined).map((m) => [m.id, m]));
    expect(byId.get(1).result.serverInfo.name).toBe("indx");
    expect(byId.get(2).result.structuredContent.results.length).toBeGreaterThan(0);
    expect(byId.get(3).result.isError).toBe(true);
    expect(byId.get(4).result.contents[0].text).toContain("Welcome");
    expect(err).toContain("mcp.stdio_started"); // logs go to stderr
    expect(out + err).not.toContain(sb.dir);
  });

  test("a broken setup fails before the handshake with a message on stderr only", async () => {
    const p = Bun.spawnSync([BIN, "mcp"], { env: { ...sb.env, INDX_VAULT: join(sb.dir, "missing") }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    expect(p.exitCode).not.toBe(0);
    expect(p.stdout.toString()).toBe("");
    expect(p.stderr.toString()).toContain("error:");
    const bad = Bun.spawnSync([BIN, "mcp", "--read-only", "--admin"], { env: sb.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout.toString()).toBe("");
  });
});
