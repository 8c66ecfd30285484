import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { App } from "../../src/app/context.ts";
import { McpHub } from "../../src/mcp/hub.ts";
import { canonicalJson } from "../../src/mcp/replay.ts";
import { createSession, type McpSession } from "../../src/mcp/session.ts";
import { parseVaultUri, vaultUri } from "../../src/mcp/uris.ts";
import { CheckedClient } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** Resources, subscriptions and prompts through a real session and the SDK client, in memory. */

const anyContent = (c: unknown) => c as { uri: string; mimeType?: string; text?: string; blob?: string };

let sb: Sandbox;
let ctx: App;
let hub: McpHub;
const sessions: McpSession[] = [];

async function connect(scopes: string[] = ["vault:read", "vault:write"]) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const session = await createSession(hub, { scopes: new Set(scopes as never) });
  sessions.push(session);
  await session.server.connect(serverSide);
  const client = new CheckedClient({ name: "mem", version: "0" });
  await client.connect(clientSide);
  return client;
}

const NOTES = 230; // more than one resources/list page (200)

beforeAll(async () => {
  const files: Record<string, string | Uint8Array> = {
    "Projects/Plan (v2) & notes #1.md": "# Plan\n\nSee [[Café]].\n",
    "Café.md": "# Café\n\nNFC name.\n",
    "Big/huge.bin": new Uint8Array(64 * 1024),
  };
  for (let i = 0; i < NOTES; i++) files[`Bulk/note ${String(i).padStart(3, "0")}.md`] = `# Note ${i}\n\nfiller text ${i}\n`;
  sb = sandbox(files);
  ctx = sb.context({ "retrieval.max_attachment_bytes": 1024 });
  await ctx.updateIndex({ build: true });
  hub = new McpHub(ctx);
});

afterAll(async () => {
  for (const s of sessions) await s.close().catch(() => {});
  hub?.close();
  ctx?.close();
  sb?.cleanup();
});

describe("vault:// URIs", () => {
  test("paths round-trip through percent-encoding, including ( ) & # and non-ASCII", () => {
    for (const p of ["Projects/Plan (v2) & notes #1.md", "Café.md", "a*b.md", "Daily/2026-01-05.md"]) {
      const uri = vaultUri(p);
      expect(uri).not.toMatch(/[ ()#*]/);
      expect(parseVaultUri(uri)).toEqual({ kind: "file", path: p, download: false });
    }
    expect(parseVaultUri("vault://Caf%C3%A9.md?download=1")).toEqual({ kind: "file", path: "Café.md", download: true });
    // An NFD spelling of the same name is normalised to NFC, as the index stores it.
    expect(parseVaultUri("vault://Cafe%CC%81.md")).toMatchObject({ path: "Café.md" });
    expect(parseVaultUri("vault://Projects/**")).toEqual({ kind: "glob", glob: "Projects/**" });
    expect(parseVaultUri("vault://a%2A/**")).toEqual({ kind: "glob", glob: "a\\*/**" });
    expect(() => parseVaultUri("vault://a%2Fb.md")).toThrow();
    expect(() => parseVaultUri("vault://bad%E0%A4")).toThrow();
    expect(() => parseVaultUri("https://example.com/x")).toThrow();
  });

  test("the replay key ignores key order", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: 2 } })).toBe(canonicalJson({ a: { c: 2, d: [1, { y: 2, z: 1 }] }, b: 1 }));
  });
});

describe("resources", () => {
  test("resources/list pages with cursors through every note", async () => {
    const client = await connect();
    const uris: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listResources(cursor ? { cursor } : {});
      uris.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(2);
    expect(new Set(uris).size).toBe(uris.length);
    expect(uris.filter((u) => u.startsWith("vault://Bulk/")).length).toBe(NOTES);
    expect(uris).toContain("vault://Projects/Plan%20%28v2%29%20%26%20notes%20%231.md");
    await expect(client.listResources({ cursor: "garbage!" })).rejects.toMatchObject({ code: -32602 });
  });

  test("every listed resource has its size in bytes; the synthetic views' sizes match what a read returns", async () => {
    const client = await connect();
    const { resources } = await client.listResources();
    for (const r of resources) expect(r.size).toBeGreaterThan(0);
    expect(resources.map((r) => r.uri).slice(0, 2)).toEqual(["vault://tags", "vault://graph"]);
    for (const uri of ["vault://tags", "vault://graph"]) {
      const text = anyContent((await client.readResource({ uri })).contents[0]).text!;
      expect(resources.find((r) => r.uri === uri)!.size).toBe(Buffer.byteLength(text));
    }
  });

  test("vault://graph comes a page at a time: nodes, their edges, and the URI of the next page", async () => {
    const client = await connect();
    const ids: string[] = [];
    const edges: { source: string; target: string; count: number }[] = [];
    let uri: string | null = "vault://graph";
    let pages = 0;
    while (uri) {
      const page = JSON.parse(anyContent((await client.readResource({ uri })).contents[0]).text!);
      expect(page.nodes.length).toBeLessThanOrEqual(200);
      expect(page.total_nodes).toBe(NOTES + 2);
      ids.push(...page.nodes.map((n: { id: string }) => n.id));
      for (const e of page.edges) expect(page.nodes.some((n: { id: string }) => n.id === e.source)).toBe(true);
      edges.push(...page.edges);
      uri = page.next_uri;
      pages++;
    }
    expect(pages).toBe(2);
    expect(new Set(ids).size).toBe(NOTES + 2);
    expect(edges).toContainEqual({ source: "Projects/Plan (v2) & notes #1.md", target: "Café.md", count: 1 });
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toContain("vault://graph{?cursor}");
    await expect(client.readResource({ uri: "vault://graph?cursor=garbage!" })).rejects.toMatchObject({ code: -32602 });
  });

  test("a listed URI reads back; odd characters survive", async () => {
    const client = await connect();
    const r = await client.readResource({ uri: vaultUri("Projects/Plan (v2) & notes #1.md") });
    expect(anyContent(r.contents[0]).text).toContain("# Plan");
    const cafe = await client.readResource({ uri: "vault://Caf%C3%A9.md" });
    expect(anyContent(cafe.contents[0]).text).toContain("NFC name");
  });

  test("attachment bytes respect the download size limit", async () => {
    const client = await connect();
    const meta = JSON.parse(anyContent((await client.readResource({ uri: "vault://Big/huge.bin" })).contents[0]).text!);
    expect(meta.size).toBe(64 * 1024);
    expect(meta.download_uri).toBe("vault://Big/huge.bin?download=1");
    await expect(client.readResource({ uri: "vault://Big/huge.bin?download=1" })).rejects.toMatchObject({
      code: -32602,
      data: { code: "payload_too_large" },
    });
  });

  test("search URIs take filters; bad parameters are typed errors", async () => {
    const client = await connect();
    const r = JSON.parse(anyContent((await client.readResource({ uri: "vault://search?q=filler&path_glob=Bulk/**&limit=3" })).contents[0]).text!);
    expect(r.results.length).toBe(3);
    expect(r.next_cursor).toBeTruthy();
    await expect(client.readResource({ uri: "vault://search?q=x&limit=lots" })).rejects.toMatchObject({ data: { code: "validation_failed" } });
    await expect(client.readResource({ uri: "vault://search?q=x&colour=blue" })).rejects.toMatchObject({ data: { code: "validation_failed" } });
    await expect(client.readResource({ uri: "vault://Projects/**" })).rejects.toMatchObject({ code: -32602 });
  });

  test("a session without vault:read can neither read nor subscribe", async () => {
    const client = await connect([]);
    expect((await client.listTools()).tools).toEqual([]);
    await expect(client.readResource({ uri: "vault://Café.md" })).rejects.toMatchObject({ data: { code: "forbidden" } });
    await expect(client.subscribeResource({ uri: "vault://Café.md" })).rejects.toMatchObject({ data: { code: "forbidden" } });
  });
});

describe("subscriptions", () => {
  test("exact, glob and synthetic subscriptions; list_changed on new files; each session its own", async () => {
    const a = await connect();
    const b = await connect();
    const seenA: string[] = [];
    const seenB: string[] = [];
    let listChanged = 0;
    a.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void seenA.push(n.params.uri));
    b.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void seenB.push(n.params.uri));
    a.setNotificationHandler((await import("@modelcontextprotocol/sdk/types.js")).ResourceListChangedNotificationSchema, () => void listChanged++);
    await a.subscribeResource({ uri: "vault://Caf%C3%A9.md" });
    await a.subscribeResource({ uri: "vault://Bulk/note 00*.md".replaceAll(" ", "%20") });
    await b.subscribeResource({ uri: "vault://tags" });

    sb.write("Café.md", "# Café\n\nchanged\n");
    sb.write("Bulk/note 005.md", "# Note 5\n\nchanged\n");
    sb.write("Bulk/note 100.md", "# Note 100\n\nchanged\n");
    sb.write("Fresh.md", "# Fresh\n");
    await ctx.updateIndex({ paths: ["Café.md", "Bulk/note 005.md", "Bulk/note 100.md", "Fresh.md"] });
    await Bun.sleep(50);
    expect(seenA.sort()).toEqual(["vault://Bulk/note%20005.md", "vault://Caf%C3%A9.md"]);
    expect(seenB).toEqual(["vault://tags"]);
    expect(listChanged).toBeGreaterThan(0);

    await a.unsubscribeResource({ uri: "vault://Caf%C3%A9.md" });
    sb.write("Café.md", "# Café\n\nagain\n");
    await ctx.updateIndex({ paths: ["Café.md"] });
    await Bun.sleep(50);
    expect(seenA.filter((u) => u === "vault://Caf%C3%A9.md").length).toBe(1);
  });
});

describe("prompts", () => {
  test("arguments are validated; the allow-list follows the session's scopes", async () => {
    const client = await connect(["vault:read"]);
    await expect(client.getPrompt({ name: "link_orphans", arguments: { limit: "0" } })).rejects.toMatchObject({ code: -32602 });
    await expect(client.getPrompt({ name: "cleanup_unresolved_links", arguments: { dry_run: "maybe" } })).rejects.toMatchObject({ code: -32602 });
    await expect(client.getPrompt({ name: "daily_note", arguments: { date: "2026-02-30" } })).rejects.toMatchObject({ code: -32602 });
    await expect(client.getPrompt({ name: "daily_note", arguments: { colour: "blue" } })).rejects.toMatchObject({ code: -32602 });
    const p = await client.getPrompt({ name: "link_orphans", arguments: { limit: "5" } });
    const text = (p.messages[0]!.content as { text: string }).text;
    expect(text).toContain("link_orphans with limit=5");
    expect(text).toContain("this session cannot write");
    for (const tool of p._meta!["indx/allowed_tools"] as string[]) expect(text).toContain(tool);
  });
});
