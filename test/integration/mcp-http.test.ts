import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { OPERATIONS } from "../../src/app/registry.ts";
import { TokenStore } from "../../src/auth/tokens.ts";
import { loadConfig } from "../../src/config/load.ts";
import { etagOf } from "../../src/core/hash.ts";
import { VERSION } from "../../src/core/version.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { McpHttpHandler } from "../../src/mcp/http.ts";
import { until as waitUntil } from "../support/listen.ts";
import { CheckedClient } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** Resource contents are text or blob; tests read whichever they expect. */
const anyContent = (c: unknown) => c as { uri: string; mimeType?: string; text?: string; blob?: string };

/** MCP over Streamable HTTP at /mcp: the real server, the SDK's own client. */

let sb: Sandbox;
let server: RunningServer;
let admin: string;
let reader: string;
const MAX_SESSIONS = 6;
const open: { client: CheckedClient; transport: StreamableHTTPClientTransport }[] = [];

async function connect(token: string | null, name = "test"): Promise<{ client: CheckedClient; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} },
  });
  const client = new CheckedClient({ name, version: "1.0.0" });
  await client.connect(transport);
  open.push({ client, transport });
  return { client, transport };
}

/** One raw JSON-RPC POST; answers come as JSON or as the last SSE event (after a priming event and any notifications). */
async function rpc(body: unknown, headers: Record<string, string>) {
  const res = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  expect(text).not.toContain(sb.dir);
  const data = text.startsWith("{") ? text : ([...text.matchAll(/^data: (.+)$/gm)].at(-1)?.[1] ?? "null");
  return { status: res.status, headers: res.headers, json: JSON.parse(data) as any };
}

const initialize = (id = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "raw", version: "0" } },
});

const until = (check: () => boolean, ms = 5000) => waitUntil(server, check, ms);

beforeAll(async () => {
  sb = sandbox({}, { fromDemo: true });
  server = await startServer(sb.context(), { host: "127.0.0.1", port: 0, notice: () => {}, mcp: { maxSessions: MAX_SESSIONS, keepAliveMs: 100 } });
  admin = loadConfig({ env: sb.env }).str("server.api_key")!;
  reader = new TokenStore(sb.dataDir).create("reader", ["vault:read"]).token;
});

/** Each test ends the sessions it opened (DELETE), so the session cap is not reached by accident. */
afterEach(async () => {
  for (const { client, transport } of open.splice(0)) {
    await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
  }
});

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

describe("sessions", () => {
  test("two clients at once get their own sessions, identity and catalogue", async () => {
    const [a, b] = await Promise.all([connect(admin, "a"), connect(admin, "b")]);
    expect(a.transport.sessionId).toBeTruthy();
    expect(b.transport.sessionId).toBeTruthy();
    expect(a.transport.sessionId).not.toBe(b.transport.sessionId);
    expect(a.client.getServerVersion()).toEqual({ name: "indx", version: VERSION });
    expect(a.client.getInstructions()).toContain("You are connected to an indx vault");
    expect(a.client.getServerCapabilities()?.resources).toEqual({ subscribe: true, listChanged: true });

    const [ra, rb] = await Promise.all([
      a.client.callTool({ name: "vault_search", arguments: { q: "rollback runbook" } }),
      b.client.callTool({ name: "note_read", arguments: { path: "Projects/Apollo Launch.md" } }),
    ]);
    expect(ra.isError).toBeFalsy();
    expect((ra.structuredContent as any).results[0].path).toBe("Reference/Runbook.md");
    expect((ra.content as any)[0].text).toContain("Reference/Runbook.md");
    expect((rb.structuredContent as any).etag).toMatch(/^[0-9a-f]{16}$/);

    const names = (await a.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("vault_reindex");
    expect(names).toContain("vault_config_get");
  });

  test("an unknown session id is 404; a request without one is 400", async () => {
    const r = await rpc({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { authorization: `Bearer ${admin}`, "mcp-session-id": "no-such-session" });
    expect(r.status).toBe(404);
    const n = await rpc({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { authorization: `Bearer ${admin}` });
    expect(n.status).toBe(400);
  });

  test("terminateSession (DELETE) ends a session: its id then answers 404", async () => {
    const { client, transport } = await connect(admin, "short-lived");
    const id = transport.sessionId!;
    await client.listTools();
    await transport.terminateSession();
    const r = await rpc(
      { jsonrpc: "2.0", id: 3, method: "tools/list" },
      { authorization: `Bearer ${admin}`, "mcp-session-id": id, "mcp-protocol-version": LATEST_PROTOCOL_VERSION },
    );
    expect(r.status).toBe(404);
    const del = await fetch(`${server.url}/mcp`, { method: "DELETE", headers: { authorization: `Bearer ${admin}`, "mcp-session-id": id } });
    expect(del.status).toBe(404);
  });

  /** A raw session: initialized, without the GET stream an SDK client opens (so it is idle between requests). */
  async function rawSession(token = admin): Promise<string> {
    const init = await rpc(initialize(), { authorization: `Bearer ${token}` });
    expect(init.status).toBe(200);
    return init.headers.get("mcp-session-id")!;
  }
  const sessionHeaders = (id: string, token = admin) => ({
    authorization: `Bearer ${token}`,
    "mcp-session-id": id,
    "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
  });
  const listTools = (id: string, token = admin) => rpc({ jsonrpc: "2.0", id: 9, method: "tools/list" }, sessionHeaders(id, token));
  const deleteSession = (id: string, token = admin) => fetch(`${server.url}/mcp`, { method: "DELETE", headers: sessionHeaders(id, token) });

  test("at the session cap an initialize evicts the least recently used idle session", async () => {
    const ids: string[] = [];
    try {
      while (server.mcp.sessionCount < MAX_SESSIONS) ids.push(await rawSession());
      expect(ids.length).toBeGreaterThanOrEqual(2);
      await Bun.sleep(5);
      expect((await listTools(ids[0]!)).status).toBe(200); // the oldest is used again: the second is now the least recent
      const newcomer = await rawSession();
      ids.push(newcomer);
      expect(server.mcp.sessionCount).toBe(MAX_SESSIONS);
      expect((await listTools(ids[1]!)).status).toBe(404);
      expect((await listTools(ids[0]!)).status).toBe(200);
      expect((await listTools(newcomer)).status).toBe(200);
    } finally {
      for (const id of ids) await deleteSession(id);
    }
  });

  test("a read-only token that opens sessions up to the cap and beyond never evicts the admin's idle session; the admin still gets in", async () => {
    const mine = await rawSession(admin);
    const theirs: string[] = [];
    try {
      await Bun.sleep(5); // the admin's session is the least recently used of all
      for (let i = 0; i < MAX_SESSIONS + 3; i++) theirs.push(await rawSession(reader));
      expect(server.mcp.sessionCount).toBe(MAX_SESSIONS);
      expect((await listTools(mine)).status).toBe(200);
      // The admin's next session pushes out one of the reader's, which holds the most.
      const second = await rawSession(admin);
      expect((await listTools(second)).status).toBe(200);
      expect((await listTools(mine)).status).toBe(200);
      await deleteSession(second, admin);
    } finally {
      await deleteSession(mine, admin);
      for (const id of theirs) await deleteSession(id, reader);
    }
  });

  test("when every session is busy (an open SSE stream), an initialize is refused with 503", async () => {
    const ids: string[] = [];
    const streams = new AbortController();
    const held: Response[] = []; // held: a fetch Response that is collected closes its stream
    try {
      while (server.mcp.sessionCount < MAX_SESSIONS) {
        const id = await rawSession();
        ids.push(id);
        const get = await fetch(`${server.url}/mcp`, { headers: { ...sessionHeaders(id), accept: "text/event-stream" }, signal: streams.signal });
        expect(get.status).toBe(200);
        held.push(get);
      }
      const r = await rpc(initialize(), { authorization: `Bearer ${admin}` });
      expect(r.status).toBe(503);
      expect(r.json.error.message).toContain("Too many MCP sessions");
      for (const id of ids) expect((await listTools(id)).status).toBe(200);
    } finally {
      streams.abort();
      for (const id of ids) await deleteSession(id);
    }
    expect(server.mcp.sessionCount).toBeLessThan(MAX_SESSIONS);
    const again = await rawSession();
    await deleteSession(again);
  });

  test("only the token that opened a session can end it; another token gets 404", async () => {
    const id = await rawSession(admin);
    try {
      const foreign = await deleteSession(id, reader);
      expect(foreign.status).toBe(404);
      expect((await listTools(id)).status).toBe(200);
    } finally {
      expect((await deleteSession(id, admin)).status).toBe(200);
    }
    expect((await listTools(id)).status).toBe(404);
  });
});

describe("resumable SSE", () => {
  interface SseEvent {
    id?: string;
    retry?: number;
    data: string;
  }
  /** Reads SSE events until `stop` says so or the stream ends. */
  async function readEvents(res: Response, stop: (e: SseEvent) => boolean): Promise<SseEvent[]> {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    const events: SseEvent[] = [];
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return events;
      buffer += value;
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const e: SseEvent = { data: "" };
        for (const line of buffer.slice(0, end).split("\n")) {
          const [field, ...rest] = line.split(":");
          const v = rest.join(":").replace(/^ /, "");
          if (field === "id") e.id = v;
          else if (field === "retry") e.retry = Number(v);
          else if (field === "data") e.data += v;
        }
        buffer = buffer.slice(end + 2);
        if (e.id !== undefined || e.data) events.push(e);
        if (events.length && stop(events[events.length - 1]!)) {
          await reader.cancel();
          return events;
        }
        end = buffer.indexOf("\n\n");
      }
    }
  }
  const answers = (id: number) => (e: SseEvent) => e.data.includes(`"id":${id}`);

  test("a POST stream starts with an event id and retry; a client that dropped it resumes with Last-Event-ID", async () => {
    const init = await rpc(initialize(), { authorization: `Bearer ${admin}` });
    const sid = init.headers.get("mcp-session-id")!;
    const h = { authorization: `Bearer ${admin}`, "mcp-session-id": sid, "mcp-protocol-version": LATEST_PROTOCOL_VERSION };
    try {
      const post = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: { ...h, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "vault_search", arguments: { q: "rollback" } } }),
      });
      const first = await readEvents(post, answers(7));
      expect(first[0]!.id).toBeTruthy();
      expect(first[0]!.retry).toBeGreaterThan(0);
      expect(first[0]!.data).toBe("");
      expect(first.at(-1)!.id).toBeTruthy();

      // As if the stream had dropped right after the priming event: the answer is replayed.
      const resumed = await fetch(`${server.url}/mcp`, { headers: { ...h, accept: "text/event-stream", "last-event-id": first[0]!.id! } });
      expect(resumed.status).toBe(200);
      const replayed = await readEvents(resumed, answers(7));
      expect(replayed.at(-1)!.data).toBe(first.at(-1)!.data);
      expect(replayed.at(-1)!.id).toBe(first.at(-1)!.id);

      // A later request that declares an older (supported) version still gets a resumable stream: the session negotiated it.
      const older = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: { ...h, "mcp-protocol-version": "2025-03-26", "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tools/list" }),
      });
      const events = await readEvents(older, answers(8));
      expect(events[0]!.id).toBeTruthy();
      expect(events[0]!.retry).toBeGreaterThan(0);
    } finally {
      await fetch(`${server.url}/mcp`, { method: "DELETE", headers: h });
    }
  });
});

describe("auth", () => {
  test("no token → 401; a wrong token → 401; a foreign Host → 403", async () => {
    expect((await rpc(initialize(), {})).status).toBe(401);
    expect((await rpc(initialize(), { authorization: "Bearer indx_wrong" })).status).toBe(401);
    await expect(connect(null)).rejects.toThrow();
    const host = await rpc(initialize(), { authorization: `Bearer ${admin}`, host: "evil.example" });
    expect(host.status).toBe(403);
  });

  test("a vault:read token lists no write or admin tool and is refused if it calls one", async () => {
    const { client } = await connect(reader, "reader");
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("vault_search");
    const writes = OPERATIONS.filter((o) => o.scope !== "vault:read").map((o) => o.name);
    expect(writes).toContain("note_write");
    for (const name of writes) expect(names).not.toContain(name);
    const calls: [string, Record<string, unknown>][] = [
      ["vault_reindex", {}],
      ["vault_config_get", {}],
      ["note_write", { path: "Sneaky.md", body: "x" }],
      ["note_delete", { path: "Welcome.md" }],
      ["note_patch", { path: "Welcome.md", ops: [{ op: "append_body", markdown: "x" }] }],
    ];
    for (const [name, args] of calls) {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError).toBe(true);
      expect(JSON.parse((r.content as any)[0].text).code).toBe("forbidden");
    }
    expect(existsSync(join(sb.vault, "Sneaky.md"))).toBe(false);
    expect(existsSync(join(sb.vault, "Welcome.md"))).toBe(true);
  });

  test("a vault:write token lists the write tools and writes", async () => {
    const writer = new TokenStore(sb.dataDir).create("writer", ["vault:write"]).token;
    const { client } = await connect(writer, "writer");
    const tools = (await client.listTools()).tools;
    const write = tools.find((t) => t.name === "note_write")!;
    expect(write.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(tools.map((t) => t.name)).not.toContain("vault_reindex");
    const r = await client.callTool({ name: "note_write", arguments: { path: "Inbox/From MCP.md", body: "# From MCP\n" } });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as any).etag).toBe(etagOf(readFileSync(join(sb.vault, "Inbox/From MCP.md"))));
  });

  test("a session opened with a read token gains nothing from an admin token later", async () => {
    const init = await rpc(initialize(), { authorization: `Bearer ${reader}` });
    const sid = init.headers.get("mcp-session-id")!;
    const h = { "mcp-session-id": sid, "mcp-protocol-version": LATEST_PROTOCOL_VERSION };
    await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${reader}`, ...h },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    const list = await rpc({ jsonrpc: "2.0", id: 5, method: "tools/list" }, { authorization: `Bearer ${admin}`, ...h });
    expect(list.json.result.tools.map((t: any) => t.name)).not.toContain("vault_reindex");
    const call = await rpc(
      { jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "vault_reindex", arguments: {} } },
      { authorization: `Bearer ${admin}`, ...h },
    );
    expect(call.json.result.isError).toBe(true);
    expect(JSON.parse(call.json.result.content[0].text).code).toBe("forbidden");
    // …and a session opened with the admin token is limited by a read token on a later request.
    const a = await connect(admin, "admin-then-read");
    const downgraded = await rpc(
      { jsonrpc: "2.0", id: 7, method: "tools/list" },
      {
        authorization: `Bearer ${reader}`,
        "mcp-session-id": a.transport.sessionId!,
        "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
      },
    );
    expect(downgraded.json.result.tools.map((t: any) => t.name)).not.toContain("vault_config_get");
  });
});

describe("subscriptions", () => {
  test("vault://Projects/** fires on a plain file write; unsubscribe silences it", async () => {
    const watcherClient = await connect(admin, "watcher");
    const bystander = await connect(admin, "bystander");
    const seen: string[] = [];
    const bystanderSeen: string[] = [];
    watcherClient.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void seen.push(n.params.uri));
    bystander.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void bystanderSeen.push(n.params.uri));
    await watcherClient.client.subscribeResource({ uri: "vault://Projects/**" });
    await watcherClient.client.subscribeResource({ uri: "vault://Welcome.md" });
    await Bun.sleep(100); // the GET stream that carries notifications opens after initialize

    const apollo = join(sb.vault, "Projects", "Apollo Launch.md");
    appendFileSync(apollo, "\nA line written by an editor.\n");
    expect(await until(() => seen.includes("vault://Projects/Apollo%20Launch.md"))).toBe(true);

    writeFileSync(join(sb.vault, "Inbox.md"), `${readFileSync(join(sb.vault, "Inbox.md"), "utf8")}\nnot in Projects\n`);
    writeFileSync(join(sb.vault, "Welcome.md"), `${readFileSync(join(sb.vault, "Welcome.md"), "utf8")}\nexact subscription\n`);
    expect(await until(() => seen.includes("vault://Welcome.md"))).toBe(true);
    expect(seen).not.toContain("vault://Inbox.md");
    expect(bystanderSeen).toEqual([]);

    // The index update also invalidated the replay cache: a read now shows the new etag.
    const read = await watcherClient.client.callTool({ name: "note_read", arguments: { path: "Projects/Apollo Launch.md", include: ["content"] } });
    expect((read.structuredContent as any).content).toContain("A line written by an editor.");

    await watcherClient.client.unsubscribeResource({ uri: "vault://Projects/**" });
    const before = seen.length;
    appendFileSync(apollo, "\nAnother line.\n");
    await server.watcher?.flush();
    await Bun.sleep(400);
    await server.watcher?.flush();
    await Bun.sleep(100);
    expect(seen.length).toBe(before);
  });

  test("a new note in a subscribed folder fires with its percent-encoded URI", async () => {
    const { client } = await connect(admin, "new-note");
    const seen: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void seen.push(n.params.uri));
    await client.subscribeResource({ uri: "vault://Projects/**" });
    await client.subscribeResource({ uri: "vault://graph" });
    await Bun.sleep(100);
    sb.write("Projects/New idea (draft).md", "# New idea\n\nSee [[Apollo Launch]].\n");
    expect(await until(() => seen.includes("vault://Projects/New%20idea%20%28draft%29.md") && seen.includes("vault://graph"))).toBe(true);
    const read = await client.readResource({ uri: "vault://Projects/New%20idea%20%28draft%29.md" });
    expect((read.contents[0] as any).text).toContain("# New idea");
  });

  test("subscribing to something that is not a vault URI is an InvalidParams error", async () => {
    const { client } = await connect(admin, "bad-sub");
    await expect(client.subscribeResource({ uri: "file:///etc/passwd" })).rejects.toMatchObject({ code: -32602 });
    await expect(client.subscribeResource({ uri: "vault://Projects/[z-a]" })).rejects.toMatchObject({ code: -32602 });
  });
});

describe("tools and resources over HTTP", () => {
  test("vault_reindex reports progress to a caller that passed a progressToken", async () => {
    const { client } = await connect(admin, "progress");
    const progress: { progress: number; total?: number }[] = [];
    const r = await client.callTool({ name: "vault_reindex", arguments: { rebuild: true } }, undefined, {
      onprogress: (p) => void progress.push(p),
    });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as any).rebuilt).toBeTruthy();
    expect(progress.length).toBeGreaterThan(0);
    const last = progress[progress.length - 1]!;
    expect(last.progress).toBe(last.total!);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
  });

  test("resources: list, templates, note, search and graph", async () => {
    const { client } = await connect(reader, "resources");
    const list = await client.listResources();
    const uris = list.resources.map((r) => r.uri);
    expect(uris).toContain("vault://graph");
    expect(uris).toContain("vault://Projects/Apollo%20Launch.md");
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toContain("vault://{+path}");
    const note = await client.readResource({ uri: "vault://Projects/Apollo%20Launch.md" });
    expect(note.contents.map(anyContent)[0]!.mimeType).toBe("text/markdown");
    const search = JSON.parse((await client.readResource({ uri: "vault://search?q=rollback&mode=lexical" })).contents.map(anyContent)[0]!.text as string);
    expect(search.results[0].path).toBe("Reference/Runbook.md");
    const graph = JSON.parse((await client.readResource({ uri: "vault://graph" })).contents.map(anyContent)[0]!.text as string);
    expect(graph.edges.some((e: any) => e.source === "People/Ada Lovelace.md" && e.target === "Projects/Apollo Launch.md")).toBe(true);
  });
});

describe("the handler on its own (in process)", () => {
  function inProcess(handler: McpHttpHandler, scopes: Set<any>) {
    return new StreamableHTTPClientTransport(new URL("http://127.0.0.1/mcp"), {
      fetch: (url, init) => handler.handle(new Request(String(url), init as RequestInit), scopes),
    });
  }

  test("idle sessions are swept; safe calls replay until the index changes", async () => {
    const local = sandbox({}, { fromDemo: true });
    const ctx = local.context();
    await ctx.updateIndex({ build: true });
    const handler = new McpHttpHandler(ctx, { idleTimeoutMs: 300, sweepIntervalMs: 50 });
    try {
      const client = new CheckedClient({ name: "idle", version: "0" });
      const transport = inProcess(handler, new Set(["vault:read"]));
      await client.connect(transport);
      expect(handler.sessionCount).toBe(1);

      // Replay: the same safe call within 60 s answers the earlier result, even if the file moved on…
      const first = await client.callTool({ name: "note_read", arguments: { path: "Welcome.md" } });
      local.write("Welcome.md", "# Welcome\n\nchanged behind indx's back\n");
      const second = await client.callTool({ name: "note_read", arguments: { path: "Welcome.md" } });
      expect((second.structuredContent as any).etag).toBe((first.structuredContent as any).etag);
      // …until the index is updated, which clears the cache.
      await ctx.updateIndex({ paths: ["Welcome.md"] });
      const third = await client.callTool({ name: "note_read", arguments: { path: "Welcome.md" } });
      expect((third.structuredContent as any).etag).not.toBe((first.structuredContent as any).etag);

      await client.close(); // drops the GET stream, leaves the session idle
      const gone = await until(() => handler.sessionCount === 0, 3000);
      expect(gone).toBe(true);
    } finally {
      await handler.close();
      ctx.close();
      local.cleanup();
    }
  });
});
