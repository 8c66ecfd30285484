import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { App } from "../../src/app/context.ts";
import { McpHub } from "../../src/mcp/hub.ts";
import { createSession, type McpSession } from "../../src/mcp/session.ts";
import type { Scope } from "../../src/ops/define.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * A session's start does not grow with the vault (docs/mcp.md, Identity): the instructions name the
 * note count, which comes from one count of the index, never from listing every note.
 */
let sb: Sandbox;
let ctx: App;
let hub: McpHub;
const sessions: McpSession[] = [];

async function instructionsOfNewSession(): Promise<string | undefined> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const session = await createSession(hub, { scopes: new Set<Scope>(["vault:read"]) });
  sessions.push(session);
  await session.server.connect(serverSide);
  const client = new Client({ name: "startup", version: "0" });
  await client.connect(clientSide);
  return client.getInstructions();
}

beforeAll(async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 40; i++) files[`Notes/n${i}.md`] = `# Note ${i}\n`;
  files["Notes/attachment.txt"] = "not a note";
  sb = sandbox(files);
  ctx = sb.context();
  await ctx.updateIndex({ build: true });
  hub = new McpHub(ctx);
});

afterAll(async () => {
  for (const s of sessions) await s.close().catch(() => {});
  hub?.close();
  ctx?.close();
  sb?.cleanup();
});

describe("session start", () => {
  test("counts the notes for the instructions without listing them", async () => {
    const list = spyOn(ctx.index.notes, "list");
    try {
      expect(await instructionsOfNewSession()).toContain("of 40 notes");
      expect(list).not.toHaveBeenCalled();
    } finally {
      list.mockRestore();
    }
  });

  test("counts the notes without a count(*) of the notes table either (it reads the whole wide table)", async () => {
    // After an index change, so nothing kept from an earlier session can answer.
    sb.write("Notes/n40.md", "# Note 40\n");
    await ctx.updateIndex({ paths: ["Notes/n40.md"] });
    const count = spyOn(ctx.index.notes, "count");
    try {
      expect(await instructionsOfNewSession()).toContain("of 41 notes");
      expect(count).not.toHaveBeenCalled();
    } finally {
      count.mockRestore();
    }
  });

  test("the count follows the index: a new note is counted by the next session, a deleted one no longer", async () => {
    sb.write("Notes/n41.md", "# Note 41\n");
    await ctx.updateIndex({ paths: ["Notes/n41.md"] });
    expect(await instructionsOfNewSession()).toContain("of 42 notes");
    rmSync(join(sb.vault, "Notes/n0.md"));
    rmSync(join(sb.vault, "Notes/n1.md"));
    await ctx.updateIndex({ paths: ["Notes/n0.md", "Notes/n1.md"] });
    expect(await instructionsOfNewSession()).toContain("of 40 notes");
  });
});
