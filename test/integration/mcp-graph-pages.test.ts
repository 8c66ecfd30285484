import { afterAll, beforeAll, expect, test } from "bun:test";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { App } from "../../src/app/context.ts";
import { GRAPH_PAGE_BYTES } from "../../src/mcp/graph-page.ts";
import { McpHub } from "../../src/mcp/hub.ts";
import { createSession, type McpSession } from "../../src/mcp/session.ts";
import type { Scope } from "../../src/ops/define.ts";
import { CheckedClient } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** vault://graph pages are budgeted by bytes, not by a count of notes (docs/decisions.md, "Graph pages budgeted by size"). */

const TARGETS = 300;
const HUBS = 3;
const target = (i: number) => `Targets/${"a-rather-long-target-name-".repeat(6)}${String(i).padStart(3, "0")}`;
const hub = (h: number) => `Hubs/${"hub-with-a-long-name-".repeat(6)}${h}`;

let sb: Sandbox;
let ctx: App;
let mcpHub: McpHub;
let session: McpSession;

beforeAll(async () => {
  const files: Record<string, string> = {};
  const links = Array.from({ length: TARGETS }, (_, i) => `- [[${target(i)}]]`).join("\n");
  for (let h = 0; h < HUBS; h++) files[`${hub(h)}.md`] = `# Hub ${h}\n\n${links}\n`;
  for (let i = 0; i < TARGETS; i++) files[`${target(i)}.md`] = `# Target ${i}\n`;
  sb = sandbox(files);
  ctx = sb.context();
  await ctx.updateIndex({ build: true });
  mcpHub = new McpHub(ctx);
});

afterAll(async () => {
  await session?.close().catch(() => {});
  mcpHub?.close();
  ctx?.close();
  sb?.cleanup();
});

test("a page of hub notes linking hundreds of notes stays within the byte budget, and paging through gives every node and edge once", async () => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  session = await createSession(mcpHub, { scopes: new Set<Scope>(["vault:read"]) });
  await session.server.connect(serverSide);
  const client = new CheckedClient({ name: "mem", version: "0" });
  await client.connect(clientSide);

  const ids: string[] = [];
  const edges: string[] = [];
  let continued = 0;
  let uri: string | null = "vault://graph";
  let pages = 0;
  while (uri) {
    const content = (await client.readResource({ uri })).contents[0] as { text?: string };
    const text = content.text ?? "";
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(GRAPH_PAGE_BYTES);
    const page = JSON.parse(text) as {
      nodes: { id: string }[];
      edges: { source: string; target: string; count: number }[];
      total_nodes: number;
      next_uri: string | null;
    };
    expect(page.total_nodes).toBe(TARGETS + HUBS);
    expect(page.nodes.length + page.edges.length).toBeGreaterThan(0);
    // A page that goes on inside a note's edges starts with that note's remaining edges.
    if (page.edges[0] && !page.nodes.some((n) => n.id === page.edges[0]?.source)) continued++;
    ids.push(...page.nodes.map((n) => n.id));
    edges.push(...page.edges.map((e) => `${e.source} -> ${e.target} ×${e.count}`));
    uri = page.next_uri;
    pages++;
    expect(pages).toBeLessThan(100);
  }
  expect(pages).toBeGreaterThan(4);
  expect(continued).toBeGreaterThan(0);
  expect(ids).toHaveLength(TARGETS + HUBS);
  expect(new Set(ids).size).toBe(TARGETS + HUBS);
  const expected = Array.from({ length: HUBS }, (_, h) => Array.from({ length: TARGETS }, (_, i) => `${hub(h)}.md -> ${target(i)}.md ×1`)).flat();
  expect(edges).toHaveLength(expected.length);
  expect(new Set(edges)).toEqual(new Set(expected));
});

test("a cursor that is not one of ours is refused as invalid params", async () => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const s = await createSession(mcpHub, { scopes: new Set<Scope>(["vault:read"]) });
  await s.server.connect(serverSide);
  const client = new CheckedClient({ name: "mem", version: "0" });
  await client.connect(clientSide);
  const bad = Buffer.from(JSON.stringify({ o: 1, e: -2 })).toString("base64url");
  await expect(client.readResource({ uri: `vault://graph?cursor=${bad}` })).rejects.toMatchObject({ code: -32602 });
  await s.close();
});
