import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { App } from "../../src/app/context.ts";
import { OPERATION_BY_NAME } from "../../src/app/registry.ts";
import { TokenStore } from "../../src/auth/tokens.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { vaultUri } from "../../src/mcp/uris.ts";
import type { Scope } from "../../src/ops/define.ts";
import { invokeOp } from "../../src/ops/invoke.ts";
import { type FakeAiServer, fakeChatEnv, fakeEnv, startFakeAiServer } from "../support/fake-ai-server.ts";
import { GRANT, LEAK_FILES, leakIn } from "../support/grant-leak.ts";
import { mcpSweep } from "../support/grant-leak-mcp.ts";
import { listenStream, type SseEvent, until as waitUntil } from "../support/listen.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * The folder-grant leak suite (docs/permissions.md) for MCP 2026-07-28 (docs/mcp.md): the same
 * granted token, speaking the stateless era over HTTP and stdio — server/discover, every tool with
 * the inputs test/support/grant-leak.ts generates, resources, templates, prompts, completions and
 * subscriptions/listen streams (live and resumed) — must never see a canary, a hidden path or a
 * count that includes a hidden note.
 */

const V26 = "2026-07-28";
const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");
const SCOPES: Scope[] = ["vault:read", "vault:write"];
const HIDDEN = "Personal/Diary zqcanary01.md";
/** Everything the listen streams watch: the whole vault, a hidden folder and note, the derived views, a base result. */
const WATCHED = ["vault://**", "vault://Personal/**", "vault://graph", "vault://tags", vaultUri(HIDDEN), "vault://base/Projects/All.base"];

let sb: Sandbox;
let ctx: App;
let server: RunningServer;
let fake: FakeAiServer;
let granted: string;
let admin: string;

const leaks: string[] = [];
function check(where: string, answer: unknown, input: unknown = null): void {
  const found = leakIn(answer, input);
  if (found) leaks.push(`${where}: …${found}…`);
}

/** The notes the grant may read, as they are on disk now (tools write into Inbox/). */
function visibleNotes(): number {
  let n = 0;
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const abs = join(dir, name);
      if (relative(sb.vault, abs).startsWith("Projects/Secret")) continue;
      if (statSync(abs).isDirectory()) walk(abs);
      else if (name.endsWith(".md")) n++;
    }
  };
  for (const top of ["Projects", "Inbox"]) walk(join(sb.vault, top));
  return n;
}

const meta = () => ({
  "io.modelcontextprotocol/protocolVersion": V26,
  "io.modelcontextprotocol/clientInfo": { name: "leak-raw", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
});

/** One 2026 POST as `token`, with the headers the spec asks for; the answer's whole text (headers and body). */
async function post(token: string, method: string, params: Record<string, unknown> = {}) {
  const name = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : null;
  const res = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
      "mcp-protocol-version": V26,
      "mcp-method": method,
      ...(name ? { "mcp-name": name } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { _meta: meta(), ...params } }),
  });
  const text = await res.text();
  const data = text.startsWith("{") ? text : ([...text.matchAll(/^data: (.+)$/gm)].at(-1)?.[1] ?? "null");
  return { raw: `${[...res.headers].join(" ")} ${text}`, headers: res.headers, json: JSON.parse(data) };
}

/** A subscriptions/listen stream over HTTP as `token`; `resume` is sent as Last-Event-ID. */
function listen(token: string, uris: string[], resume?: string) {
  return listenStream(
    `${server.url}/mcp`,
    { authorization: `Bearer ${token}`, "mcp-protocol-version": V26, ...(resume ? { "last-event-id": resume } : {}) },
    {
      jsonrpc: "2.0",
      id: "L",
      method: "subscriptions/listen",
      params: { _meta: meta(), notifications: { resourceSubscriptions: uris, resourcesListChanged: true } },
    },
  );
}

const until = (ok: () => boolean) => waitUntil(server, ok);

/** Lets the watcher and the hub deliver whatever is still on its way, so "nothing came" means something. */
async function settle(): Promise<void> {
  await server.watcher?.flush();
  await Bun.sleep(700);
  await server.watcher?.flush();
}

const updates = (events: SseEvent[]) => events.filter((e) => e.data.method === "notifications/resources/updated").map((e) => e.data.params?.uri);
const listChanges = (events: SseEvent[]) => events.filter((e) => e.data.method === "notifications/resources/list_changed").length;

beforeAll(async () => {
  fake = startFakeAiServer();
  sb = sandbox(LEAK_FILES);
  Object.assign(sb.env, fakeChatEnv(fake), fakeEnv(fake), { INDX_RATE_LIMIT_PER_SECOND: "0" });
  ctx = sb.context();
  await invokeOp(OPERATION_BY_NAME.get("vault_reindex")!, ctx, { embeddings: true });
  server = await startServer(ctx, { host: "127.0.0.1", port: 0, notice: () => {} });
  admin = loadConfig({ env: sb.env }).str("server.api_key")!;
  granted = new TokenStore(sb.dataDir).create("drafter-2026", SCOPES, GRANT).token;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  fake?.stop();
  sb?.cleanup();
});

describe("MCP 2026-07-28 with a folder grant", () => {
  test("server/discover counts only the visible notes; no list is marked shareable across tokens", async () => {
    const whole = await post(admin, "server/discover");
    const discover = await post(granted, "server/discover");
    check("discover", discover.raw);
    expect(discover.json.result.instructions).toContain(`vault of ${visibleNotes()} notes`);
    // The admin's answer counts every note: the per-grant cache must not hand it to the token, nor the reverse.
    expect(whole.json.result.instructions).not.toContain(`vault of ${visibleNotes()} notes`);
    expect((await post(granted, "server/discover")).json.result.instructions).toContain(`vault of ${visibleNotes()} notes`);
    for (const method of ["server/discover", "tools/list", "resources/list", "resources/templates/list", "prompts/list"]) {
      const r = await post(granted, method);
      check(method, r.raw);
      // An answer that depends on the token is private: a shared cache must not serve it to another (docs/mcp.md).
      expect(r.json.result.cacheScope).toBe("private");
      expect(r.headers.get("cache-control") ?? "").not.toMatch(/public/);
    }
    const read = await post(granted, "resources/read", { uri: vaultUri("Projects/Alpha.md") });
    expect(read.json.result.cacheScope).toBe("private");
    const hidden = await post(granted, "resources/read", { uri: vaultUri(HIDDEN) });
    expect(hidden.json.error.data.code).toBe("not_found");
    check("read hidden", hidden.raw, [vaultUri(HIDDEN), HIDDEN]);
    expect(leaks).toEqual([]);
  });

  test("caches warmed by the admin (replays, derived views, AI results) do not answer the granted token", async () => {
    const asked: [string, Record<string, unknown>][] = [
      ["tools/call", { name: "note_list", arguments: {} }],
      ["tools/call", { name: "tag_list", arguments: {} }],
      ["tools/call", { name: "vault_status", arguments: {} }],
      ["tools/call", { name: "vault_search", arguments: { q: "zebra" } }],
      ["tools/call", { name: "link_backlinks", arguments: { path: "Projects/Alpha.md" } }],
      ["resources/list", {}],
      ["resources/read", { uri: "vault://graph" }],
      ["resources/read", { uri: "vault://tags" }],
      ["resources/read", { uri: "vault://search?q=zebra" }],
      ["resources/read", { uri: "ai://summary/glob/**" }],
      ["completion/complete", { ref: { type: "ref/resource", uri: "vault://{+path}" }, argument: { name: "path", value: "P" } }],
    ];
    let warmedWithHidden = 0;
    for (const [method, params] of asked) {
      if (/zqcanary|Personal\//.test((await post(admin, method, params)).raw)) warmedWithHidden++;
      check(`${method} ${JSON.stringify(params)} after the admin`, (await post(granted, method, params)).raw, params);
    }
    // The admin's answers held hidden notes: the caches had something to leak.
    expect(warmedWithHidden).toBeGreaterThan(asked.length / 2);
    const list = await post(granted, "tools/call", { name: "note_list", arguments: {} });
    expect(list.json.result.structuredContent.total).toBe(visibleNotes());
    expect(leaks).toEqual([]);
  }, 120_000);

  test("over HTTP: the 2.x client's discover, every tool, resource, template, prompt and completion", async () => {
    const client = new Client({ name: "leak-2026", version: "1" }, { versionNegotiation: { mode: { pin: V26 } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${granted}` } } }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(V26);
      expect(client.getInstructions() ?? "").toContain(`vault of ${visibleNotes()} notes`);
      await mcpSweep(client, "http 2026", check);
    } finally {
      await client.close();
    }
    expect(leaks).toEqual([]);
  }, 180_000);

  test("over HTTP: subscriptions/listen hears the visible change only, and a resume replays nothing hidden", async () => {
    const watch = listen(granted, WATCHED);
    const observer = listen(admin, ["vault://**"]);
    expect(await until(() => watch.events.length > 0 && observer.events.length > 0)).toBe(true);
    expect(watch.events[0]?.data.method).toBe("notifications/subscriptions/acknowledged");
    // ai:// is refused under a grant (docs/permissions.md), in words that name nothing hidden.
    const ai = listen(granted, ["ai://summary/glob/**"]);
    expect(await until(() => ai.events.length > 0)).toBe(true);
    expect(JSON.stringify(ai.events)).toContain("folder grant");
    ai.close();

    // A visible edit first: its event id is the resume point from before the hidden edits.
    writeFileSync(join(sb.vault, "Inbox/Draft.md"), `${LEAK_FILES["Inbox/Draft.md"]}\nfirst\n`);
    expect(await until(() => updates(watch.events).includes(vaultUri("Inbox/Draft.md")))).toBe(true);
    const resumeFrom = watch.events.findLast((e) => e.data.params?.uri === vaultUri("Inbox/Draft.md"))?.id;
    expect(typeof resumeFrom).toBe("string");
    await settle();
    const quietFrom = watch.events.length;

    // Outside edits to hidden files: one changed, one created, one deleted.
    writeFileSync(join(sb.vault, HIDDEN), `${LEAK_FILES[HIDDEN]}\nzqedit01\n`);
    writeFileSync(join(sb.vault, "Personal/zqcanary11 New.md"), "zebra zqcanary11\n");
    expect(await until(() => updates(observer.events).includes(vaultUri("Personal/zqcanary11 New.md")))).toBe(true);
    await settle();
    expect(watch.events.slice(quietFrom).map((e) => e.data)).toEqual([]);

    // Resumed from before the hidden edits: nothing about them is replayed.
    const resumed = listen(granted, WATCHED, resumeFrom);
    expect(await until(() => resumed.events.length > 0)).toBe(true);
    await settle();
    expect(resumed.events.map((e) => e.data.method)).toEqual(["notifications/subscriptions/acknowledged"]);

    // Then a visible edit: announced on both, and only it.
    writeFileSync(join(sb.vault, "Projects/Beta.md"), `${LEAK_FILES["Projects/Beta.md"]}\nedited\n`);
    expect(await until(() => updates(watch.events).includes(vaultUri("Projects/Beta.md")))).toBe(true);
    await settle();
    const heard = watch.events.slice(quietFrom);
    expect([...new Set(updates(heard))].sort()).toEqual(["vault://graph", "vault://tags", vaultUri("Projects/Beta.md")].sort());
    expect(listChanges(heard)).toBe(0);
    for (const s of [watch, resumed, observer]) s.close();
    await Promise.all([watch.done, resumed.done, observer.done]);
    // The acknowledgement names the URIs the client asked for: saying them back is no leak.
    check("listen events", watch.events, WATCHED);
    check("resumed listen events", resumed.events, WATCHED);
    expect(JSON.stringify(observer.events)).toContain("zqcanary11");
    expect(leaks).toEqual([]);
  }, 60_000);

  test("over stdio (indx mcp, INDX_TOKEN): the sweep and a listen stream", async () => {
    const client = new Client({ name: "leak-2026-stdio", version: "1" }, { versionNegotiation: { mode: { pin: V26 } } });
    await client.connect(new StdioClientTransport({ command: "bun", args: [MAIN, "mcp"], env: { ...sb.env, INDX_TOKEN: granted }, stderr: "ignore" }));
    const heard: unknown[] = [];
    client.setNotificationHandler("notifications/resources/updated", (n) => void heard.push(n.params));
    client.setNotificationHandler("notifications/resources/list_changed", (n) => void heard.push({ list_changed: n.params ?? {} }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(V26);
      expect(client.getInstructions() ?? "").toContain(`vault of ${visibleNotes()} notes`);
      await mcpSweep(client, "stdio 2026", check);
      const sub = await client.listen({ resourceSubscriptions: WATCHED, resourcesListChanged: true });
      check("stdio listen ack", sub.honoredFilter, WATCHED);
      const refused = await client.listen({ resourceSubscriptions: ["ai://summary/glob/**"] }).then(
        () => "subscribed",
        (e) => String(e),
      );
      expect(refused).toContain("folder grant");
      // Barriers instead of sleeps: the child's watcher reports in order, so once a visible edit is
      // heard, whatever came before it (the sweep's own writes, then the hidden edits) has been too.
      const hear = async (path: string) => {
        for (let i = 0; i < 600 && !JSON.stringify(heard).includes(vaultUri(path)); i++) await Bun.sleep(50);
        expect(JSON.stringify(heard)).toContain(vaultUri(path));
      };
      writeFileSync(join(sb.vault, "Inbox/Draft.md"), `${LEAK_FILES["Inbox/Draft.md"]}\nstdio barrier\n`);
      await hear("Inbox/Draft.md");
      await Bun.sleep(300);
      const quietFrom = heard.length;
      writeFileSync(join(sb.vault, HIDDEN), `${LEAK_FILES[HIDDEN]}\nzqedit02\n`);
      writeFileSync(join(sb.vault, "Personal/zqcanary12 New.md"), "zebra zqcanary12\n");
      await Bun.sleep(300);
      writeFileSync(join(sb.vault, "Projects/Beta.md"), `${LEAK_FILES["Projects/Beta.md"]}\nedited on stdio\n`);
      await hear("Projects/Beta.md");
      await Bun.sleep(500);
      const after = heard.slice(quietFrom) as { uri?: string }[];
      expect([...new Set(after.map((n) => n.uri))].sort()).toEqual(["vault://graph", "vault://tags", vaultUri("Projects/Beta.md")].sort());
      check("stdio listen", heard);
      await sub.close();
    } finally {
      await client.close();
    }
    expect(leaks).toEqual([]);
  }, 180_000);
});
