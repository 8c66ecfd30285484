import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { loadConfig } from "../../src/config/load.ts";
import { VERSION } from "../../src/core/version.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { listenStream, until as waitUntil } from "../support/listen.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** MCP 2026-07-28 on /mcp beside 2025-11-25 (docs/mcp.md, "MCP 2026-07-28"): raw wire checks and the 2.x SDK client. */

const V26 = "2026-07-28";
let sb: Sandbox;
let server: RunningServer;
let admin: string;
const clients: Client[] = [];

const meta = (version = V26) => ({
  "io.modelcontextprotocol/protocolVersion": version,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
});

/** One modern POST with the headers the spec requires, unless `headers` overrides them. */
async function post(method: string, params: Record<string, unknown> = {}, headers: Record<string, string | null> = {}, id: number | string = 1) {
  const name = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : null;
  const all: Record<string, string | null> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    authorization: `Bearer ${admin}`,
    "mcp-protocol-version": V26,
    "mcp-method": method,
    ...(name ? { "mcp-name": name } : {}),
    ...headers,
  };
  const res = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== null)),
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { _meta: meta(), ...params } }),
  });
  const text = await res.text();
  expect(text).not.toContain(sb.dir);
  const data = text.startsWith("{") ? text : ([...text.matchAll(/^data: (.+)$/gm)].at(-1)?.[1] ?? "null");
  return { status: res.status, headers: res.headers, json: JSON.parse(data) };
}

async function modernClient(mode: "auto" | { pin: string } = { pin: V26 }): Promise<Client> {
  const client = new Client({ name: "sdk2", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${admin}` } } }));
  clients.push(client);
  return client;
}

const until = (check: () => boolean) => waitUntil(server, check, 8000);

beforeAll(async () => {
  sb = sandbox({}, { fromDemo: true });
  server = await startServer(sb.context(), { host: "127.0.0.1", port: 0, notice: () => {}, mcp: { keepAliveMs: 100 } });
  admin = loadConfig({ env: sb.env }).str("server.api_key") ?? "";
});

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
});

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

describe("stateless requests", () => {
  test("server/discover: versions, capabilities, instructions and identity, cacheable, no session", async () => {
    const r = await post("server/discover");
    expect(r.status).toBe(200);
    expect(r.headers.get("mcp-session-id")).toBeNull();
    const res = r.json.result;
    expect(res.resultType).toBe("complete");
    expect(res.supportedVersions[0]).toBe(V26);
    expect(res.supportedVersions).toContain("2025-11-25");
    expect(res.capabilities.tools).toBeTruthy();
    expect(res.capabilities.resources).toEqual({ subscribe: true, listChanged: true });
    expect(res.instructions).toContain("Search before you read");
    expect(res._meta["io.modelcontextprotocol/serverInfo"]).toEqual({ name: "indx", version: VERSION });
    expect(res.ttlMs).toBeGreaterThanOrEqual(0);
    expect(res.cacheScope).toBe("private");
  });

  test("tools/list and tools/call without initialize or session; lists carry cache hints; results resultType", async () => {
    const list = await post("tools/list");
    expect(list.json.result.resultType).toBe("complete");
    expect(list.json.result.tools.map((t: { name: string }) => t.name)).toContain("vault_search");
    expect(typeof list.json.result.ttlMs).toBe("number");
    expect(list.json.result.cacheScope).toBe("private");
    const call = await post("tools/call", { name: "vault_search", arguments: { q: "rollback runbook" } });
    expect(call.status).toBe(200);
    expect(call.json.result.resultType).toBe("complete");
    expect(call.json.result.structuredContent.results[0].path).toBe("Reference/Runbook.md");
    expect(call.json.result._meta["io.modelcontextprotocol/serverInfo"].name).toBe("indx");
    const read = await post("resources/read", { uri: "vault://Welcome.md" });
    expect(read.json.result.contents[0].text).toContain("Welcome");
    expect(read.json.result.cacheScope).toBe("private");
  });

  test("header validation: missing or mismatched Mcp-Method, Mcp-Name, protocol version are 400 HeaderMismatch (-32020)", async () => {
    const cases: Record<string, string | null>[] = [
      { "mcp-method": null },
      { "mcp-method": "tools/list" },
      { "mcp-name": null },
      { "mcp-name": "note_read" },
      { "mcp-protocol-version": null },
      { "mcp-protocol-version": "2025-11-25" },
    ];
    for (const headers of cases) {
      const r = await post("tools/call", { name: "vault_status", arguments: {} }, headers);
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe(-32020);
    }
    const encoded = await post("tools/call", { name: "vault_status", arguments: {} }, { "mcp-name": `=?base64?${btoa("vault_status")}?=` });
    expect(encoded.status).toBe(200);
  });

  test("an unsupported version is 400 -32022 naming the supported ones; an unknown method is 404 -32601", async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${admin}`,
        "mcp-protocol-version": "2099-01-01",
        "mcp-method": "tools/list",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: meta("2099-01-01") } }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { id: number; error: { code: number; data: { supported: string[]; requested: string } } };
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32022);
    expect(body.error.data.supported).toContain(V26);
    expect(body.error.data.requested).toBe("2099-01-01");
    const unknown = await post("no/such_method");
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe(-32601);
  });

  test("notifications/message only for a request whose _meta names a log level, on its own stream", async () => {
    const raw = async (extraMeta: Record<string, unknown>) => {
      const res = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${admin}`,
          "mcp-protocol-version": V26,
          "mcp-method": "tools/call",
          "mcp-name": "vault_status",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: { _meta: { ...meta(), ...extraMeta }, name: "vault_status", arguments: {} },
        }),
      });
      return [...(await res.text()).matchAll(/^data: (.+)$/gm)].map((m) => JSON.parse(m[1] ?? "null"));
    };
    const quiet = await raw({});
    expect(quiet.filter((m) => m.method === "notifications/message")).toHaveLength(0);
    expect(quiet.at(-1).result.resultType).toBe("complete");
    const chatty = await raw({ "io.modelcontextprotocol/logLevel": "debug" });
    const logs = chatty.filter((m) => m.method === "notifications/message");
    expect(logs.map((m) => m.params.data.event)).toContain("tool_call");
    expect(chatty.at(-1).id).toBe(3);
  });

  test("a notification needs no session (202); a body without _meta under a 2026 header is -32602 (400)", async () => {
    const send = (body: unknown) =>
      fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${admin}`,
          "mcp-protocol-version": V26,
        },
        body: JSON.stringify(body),
      });
    expect((await send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "x" } })).status).toBe(202);
    const bare = await send({ jsonrpc: "2.0", id: 9, method: "tools/list" });
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as { error: { code: number } }).error.code).toBe(-32602);
  });

  test("a missing resource is -32602 in 2026 (it stays -32002 for 2025 sessions)", async () => {
    const r = await post("resources/read", { uri: "vault://Nope.md" });
    expect(r.json.error.code).toBe(-32602);
    expect(r.json.error.data.code).toBe("not_found");
  });
});

describe("the 2.x SDK client pinned to 2026-07-28", () => {
  test("discovers, calls tools, reads resources and gets prompts with no session", async () => {
    const client = await modernClient();
    expect(client.getNegotiatedProtocolVersion()).toBe(V26);
    const found = await client.callTool({ name: "vault_search", arguments: { q: "rollback runbook" } });
    expect((found.structuredContent as { results: { path: string }[] }).results[0]?.path).toBe("Reference/Runbook.md");
    const note = await client.readResource({ uri: "vault://Welcome.md" });
    expect(JSON.stringify(note.contents)).toContain("Welcome");
    const prompt = await client.getPrompt({ name: "daily_note", arguments: { date: "2026-01-07" } });
    expect(JSON.stringify(prompt.messages)).toContain("Daily/2026-01-07.md");
  });

  test("left to negotiate (auto), the client finds 2026-07-28", async () => {
    const client = await modernClient("auto");
    expect(client.getNegotiatedProtocolVersion()).toBe(V26);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  test("subscriptions/listen: a glob reports a write with the file's URI, and nothing outside it", async () => {
    const client = await modernClient();
    const seen: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (n) => void seen.push(n.params.uri));
    const sub = await client.listen({ resourceSubscriptions: ["vault://Projects/**"], resourcesListChanged: true });
    expect(sub.honoredFilter.resourceSubscriptions).toEqual(["vault://Projects/**"]);
    await client.callTool({ name: "note_write", arguments: { path: "Inbox/elsewhere.md", body: "# not watched\n" } });
    await client.callTool({ name: "note_write", arguments: { path: "Projects/Listen.md", body: "# listen\n" } });
    expect(await until(() => seen.includes("vault://Projects/Listen.md"))).toBe(true);
    await Bun.sleep(300);
    expect(seen.some((u) => u.includes("Inbox"))).toBe(false);
    await sub.close();
  });
});

describe("subscriptions/listen on the wire", () => {
  /** Opens a listen stream and collects its SSE events until it is closed. */
  function listen(params: Record<string, unknown>, headers: Record<string, string> = {}) {
    return listenStream(
      `${server.url}/mcp`,
      { authorization: `Bearer ${admin}`, "mcp-protocol-version": V26, ...headers },
      { jsonrpc: "2.0", id: "L1", method: "subscriptions/listen", params: { _meta: meta(), ...params } },
      (res) => expect(res.headers.get("content-type")).toContain("text/event-stream"),
    );
  }

  test("acknowledged first, tagged with the subscription id; an update carries an event id to resume from", async () => {
    const l = listen({ notifications: { resourceSubscriptions: ["vault://Reference/**"], toolsListChanged: true } });
    expect(await until(() => l.events.length > 0)).toBe(true);
    const ack = l.events[0]?.data;
    expect(ack.method).toBe("notifications/subscriptions/acknowledged");
    expect(ack.params._meta["io.modelcontextprotocol/subscriptionId"]).toBe("L1");
    // indx's tools do not change while it runs: toolsListChanged is not honoured.
    expect(ack.params.notifications).toEqual({ resourceSubscriptions: ["vault://Reference/**"] });
    sb.write("Reference/Listen A.md", "# A\n");
    expect(await until(() => l.events.some((e) => e.data.params?.uri === "vault://Reference/Listen%20A.md"))).toBe(true);
    const update = l.events.find((e) => e.data.params?.uri === "vault://Reference/Listen%20A.md");
    expect(update?.data.params._meta["io.modelcontextprotocol/subscriptionId"]).toBe("L1");
    const resumeFrom = update?.data.params._meta["indx/eventId"];
    expect(typeof resumeFrom).toBe("string");
    expect(update?.id).toBe(resumeFrom);
    l.close();
    await l.done;

    // While no stream is open, a write lands; the next stream, resumed from the last event id, reports it.
    sb.write("Reference/Listen B.md", "# B\n");
    await server.watcher?.flush();
    const again = listen({ notifications: { resourceSubscriptions: ["vault://Reference/**"] }, _meta: { ...meta(), "indx/lastEventId": resumeFrom } });
    expect(await until(() => again.events.some((e) => e.data.params?.uri === "vault://Reference/Listen%20B.md"))).toBe(true);
    expect(again.events.some((e) => e.data.params?.uri === "vault://Reference/Listen%20A.md")).toBe(false);
    again.close();
    await again.done;
    // A closed stream leaves nothing behind.
    expect(await until(() => server.mcp.modern.streamCount === 0)).toBe(true);
  });

  test("a base result is announced only when an edit changes it", async () => {
    const uri = "vault://base/Projects.base?view=By%20status";
    const l = listen({ notifications: { resourceSubscriptions: [uri] } });
    expect(await until(() => l.events.length > 0)).toBe(true);
    const updates = () => l.events.filter((e) => e.data.params?.uri === uri);
    // Body text is not in the result: nothing.
    sb.write("Projects/Beacon Research.md", "---\ntags:\n  - project/research\nstatus: paused\n---\n# Beacon Research\n\nMore words.\n");
    await server.watcher?.flush();
    await Bun.sleep(600);
    const before = updates().length;
    expect(before).toBe(0);
    // A status change moves the note to another group.
    sb.write("Projects/Beacon Research.md", "---\ntags:\n  - project/research\nstatus: active\n---\n# Beacon Research\n\nMore words.\n");
    expect(await until(() => updates().length > before)).toBe(true);
    l.close();
    await l.done;
  });
});
