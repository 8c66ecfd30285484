import { afterAll, beforeAll, describe, expect, test } from "bun:test";
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
