import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { App } from "../../src/app/context.ts";
import { McpHub } from "../../src/mcp/hub.ts";
import { createSession, type McpSession } from "../../src/mcp/session.ts";
import type { Scope } from "../../src/ops/define.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** What an agent meets through a real session and the SDK client (issue 30, agent-facing fixes). */
let sb: Sandbox;
let ctx: App;
let hub: McpHub;
let client: Client;
const sessions: McpSession[] = [];

beforeAll(async () => {
  sb = sandbox({}, { fromDemo: true });
  ctx = sb.context();
  await ctx.updateIndex({ build: true });
  hub = new McpHub(ctx);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const session = await createSession(hub, { scopes: new Set<Scope>(["vault:read", "vault:write", "vault:admin"]) });
  sessions.push(session);
  await session.server.connect(serverSide);
  client = new Client({ name: "fixes", version: "0" });
  await client.connect(clientSide);
});

afterAll(async () => {
  for (const s of sessions) await s.close().catch(() => {});
  hub?.close();
  ctx?.close();
  sb?.cleanup();
});

describe("prompts", () => {
  test("an unknown prompt is Invalid params (-32602), with the typed error in data", async () => {
    const err = await client.getPrompt({ name: "no_such_prompt" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((err as McpError).data).toMatchObject({ code: "not_found", details: { prompt: "no_such_prompt" } });
  });
});

describe("annotations", () => {
  test("a write that a repeat leaves as the first left it is idempotent; one that adds again is not", async () => {
    const { tools } = await client.listTools();
    const hint = (name: string) => tools.find((t) => t.name === name)?.annotations?.idempotentHint;
    for (const name of ["note_write", "note_delete", "note_move", "tag_rename", "canvas_write", "vault_config_set", "vault_reindex"])
      expect([name, hint(name)]).toEqual([name, true]);
    for (const name of ["note_patch", "note_capture", "attachment_write", "canvas_patch"]) expect([name, hint(name)]).toEqual([name, false]);
    expect(hint("vault_search")).toBe(true);
  });
});

describe("paths by name", () => {
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await client.callTool({ name, arguments: args });
    const text = (r.content as { type: string; text: string }[])[0]?.text ?? "";
    return { isError: r.isError === true, structured: r.structuredContent as Record<string, unknown> | undefined, error: r.isError ? JSON.parse(text) : null };
  };

  test("note_read takes a note's name, resolved as the wikilink [[name]] would be", async () => {
    const r = await call("note_read", { path: "Apollo Launch" });
    expect(r.isError).toBe(false);
    expect(r.structured?.path).toBe("Projects/Apollo Launch.md");
    const outline = await call("note_outline", { path: "Runbook" });
    expect(outline.structured?.path).toBe("Reference/Runbook.md");
    const many = await call("note_read_many", { paths: ["Apollo Launch", "Welcome.md"] });
    expect(((many.structured?.notes ?? []) as { path: string }[]).map((n) => n.path)).toEqual(["Projects/Apollo Launch.md", "Welcome.md"]);
  });

  test("a path that names nothing is not_found with the closest paths as suggestions", async () => {
    const r = await call("note_read", { path: "Projects/Apolo Launch.md" });
    expect(r.error).toMatchObject({ code: "not_found", details: { suggestions: ["Projects/Apollo Launch.md"] } });
    expect(r.error.message).toContain("Did you mean Projects/Apollo Launch.md?");
  });

  test("an exact path wins, and a write never writes to a guessed note", async () => {
    const w = await call("note_write", { path: "Apollo Launch.md", body: "# A new note at the root\n", if_not_exists: true });
    expect(w.structured?.path).toBe("Apollo Launch.md");
    expect((await call("note_read", { path: "Apollo Launch.md" })).structured?.path).toBe("Apollo Launch.md");
    const exists = await call("note_exists", { path: "Runbook" });
    expect(exists.structured?.exists).toBe(false);
  });
});

describe("weekly_review", () => {
  test("lists the week's changed notes in one note_list call, without walking every newer note", async () => {
    const at = (path: string, iso: string) => utimesSync(join(sb.vault, path), new Date(iso), new Date(iso));
    at("Inbox.md", "2026-01-06T10:00:00");
    at("Welcome.md", "2026-01-11T20:00:00");
    at("Reference/Glossary.md", "2026-01-12T09:00:00");
    at("People/Ada Lovelace.md", "2026-01-04T09:00:00");
    await ctx.updateIndex({ full: true });
    const prompt = await client.getPrompt({ name: "weekly_review", arguments: { week_of: "2026-01-07" } });
    const text = (prompt.messages[0]?.content as { text?: string } | undefined)?.text ?? "";
    expect(text).not.toContain("page with cursor");
    const where = /where '([^']+)'/.exec(text)?.[1];
    expect(where).toBeDefined();
    const r = await client.callTool({ name: "note_list", arguments: { where, sort: "mtime", limit: 100 } });
    const paths = (r.structuredContent as { notes: { path: string }[] }).notes.map((n) => n.path);
    expect(paths).toContain("Inbox.md");
    expect(paths).toContain("Welcome.md");
    expect(paths).not.toContain("Reference/Glossary.md");
    expect(paths).not.toContain("People/Ada Lovelace.md");
  });
});
