import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema, ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { App } from "../../src/app/context.ts";
import { OPERATION_BY_NAME, OPERATIONS } from "../../src/app/registry.ts";
import { TokenStore } from "../../src/auth/tokens.ts";
import { loadConfig } from "../../src/config/load.ts";
import { toIndxError } from "../../src/core/errors.ts";
import { etagOf } from "../../src/core/hash.ts";
import { ROUTES } from "../../src/http/routes.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { vaultUri } from "../../src/mcp/uris.ts";
import type { Scope } from "../../src/ops/define.ts";
import { invokeOp } from "../../src/ops/invoke.ts";
import { compileGrant } from "../../src/vault/grant.ts";
import { type FakeAiServer, fakeChatEnv, fakeEnv, startFakeAiServer } from "../support/fake-ai-server.ts";
import { CANARY, GRANT, inputsFor, LEAK_FILES, leakIn, restRequestOf, VISIBLE_NOTES } from "../support/grant-leak.ts";
import { mcpSweep } from "../support/grant-leak-mcp.ts";
import { until as waitUntil } from "../support/listen.ts";
import { CheckedClient } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * The folder-grant leak suite (docs/permissions.md). Generated from the operation registry and
 * the REST routes: a new operation or route is called here without editing this file. A token
 * granted read Projects/**, write Inbox/**, deny Projects/Secret/** calls everything on every
 * surface; no canary of a hidden note may appear in any answer, error, notification, stream
 * event or request to the model, and nothing outside Inbox/ changes on disk.
 */

let sb: Sandbox;
let ctx: App;
let server: RunningServer;
let fake: FakeAiServer;
let granted: string;
let admin: string;
const SCOPES: Scope[] = ["vault:read", "vault:write"];
const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");

/** Every file outside Inbox/, by path, with a hash of its bytes. */
function diskOutsideInbox(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const abs = join(dir, name);
      const rel = relative(sb.vault, abs);
      if (rel.startsWith(".") || rel.startsWith("Inbox")) continue;
      if (statSync(abs).isDirectory()) walk(abs);
      else out[rel] = etagOf(readFileSync(abs));
    }
  };
  walk(sb.vault);
  return out;
}

/** The notes the grant may read, as they are on disk now (the sweep writes into Inbox/). */
function visibleNotes(): number {
  let n = 0;
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const abs = join(dir, name);
      const rel = relative(sb.vault, abs);
      if (rel.startsWith("Projects/Secret")) continue;
      if (statSync(abs).isDirectory()) walk(abs);
      else if (rel.endsWith(".md")) n++;
    }
  };
  for (const top of ["Projects", "Inbox"]) walk(join(sb.vault, top));
  return n;
}

const leaks: string[] = [];
function check(where: string, answer: unknown, input: unknown = null): void {
  const found = leakIn(answer, input);
  if (found) leaks.push(`${where}: …${found}…`);
}

let before: Record<string, string>;

beforeAll(async () => {
  fake = startFakeAiServer();
  sb = sandbox(LEAK_FILES);
  Object.assign(sb.env, fakeChatEnv(fake), fakeEnv(fake), { INDX_RATE_LIMIT_PER_SECOND: "0" });
  ctx = sb.context();
  await invokeOp(OPERATION_BY_NAME.get("vault_reindex")!, ctx, { embeddings: true });
  server = await startServer(ctx, { host: "127.0.0.1", port: 0, notice: () => {} });
  admin = loadConfig({ env: sb.env }).str("server.api_key")!;
  granted = new TokenStore(sb.dataDir).create("drafter", SCOPES, GRANT).token;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  fake?.stop();
  sb?.cleanup();
});

/** The MCP sweep (test/support/grant-leak-mcp.ts), with the instructions counting only the visible notes. */
async function sweep(client: CheckedClient, via: string): Promise<void> {
  expect(client.getInstructions() ?? "").toContain(`vault of ${visibleNotes()} notes`);
  await mcpSweep(client, via, check);
}

describe("targeted: what a grant hides is not there", () => {
  const call = () => ctx.forCall({ scopes: new Set(SCOPES), grant: compileGrant(GRANT), caller: { surface: "rest", token_id: "tok_audit" } });
  const run = async (name: string, input: unknown) => (await invokeOp(OPERATION_BY_NAME.get(name)!, call(), input)).result as any;
  const fail = async (name: string, input: unknown) => {
    try {
      await invokeOp(OPERATION_BY_NAME.get(name)!, call(), input);
    } catch (err) {
      return toIndxError(err);
    }
    throw new Error(`${name} did not fail`);
  };

  test("counts, totals and lists count only the visible notes", async () => {
    expect(visibleNotes()).toBe(VISIBLE_NOTES.length);
    expect((await run("note_list", { limit: 1 })).total).toBe(VISIBLE_NOTES.length);
    // The whole vault's status first: a count cached for it must not reach the grant, nor the reverse.
    const whole = (await invokeOp(OPERATION_BY_NAME.get("vault_status")!, ctx, {})).result as any;
    const status = await run("vault_status", {});
    expect(status.index.counts.notes).toBe(VISIBLE_NOTES.length);
    expect(status.embeddings.counts.chunks).toBeGreaterThan(0);
    expect(status.embeddings.counts.chunks).toBeLessThan(whole.embeddings.counts.chunks);
    const again = (await invokeOp(OPERATION_BY_NAME.get("vault_status")!, ctx, {})).result as any;
    expect(again.embeddings.counts).toEqual(whole.embeddings.counts);
    const shared = (await run("tag_list", {})).tags.find((t: { tag: string }) => t.tag === "shared");
    expect(shared.count).toBe(2);
    const search = await run("vault_search", { q: "zebra", mode: "lexical" });
    expect(search.results).toEqual([]);
    const backlinks = await run("link_backlinks", { path: "Projects/Alpha.md" });
    expect(backlinks.backlinks.map((b: { source: string }) => b.source).sort()).toEqual(["Inbox/Draft.md", "Projects/Beta.md"]);
  });

  test("a hidden note is not_found in the words a missing one gets", async () => {
    const hidden = await fail("note_read", { path: "Personal/Diary zqcanary01.md" });
    const missing = await fail("note_read", { path: "Personal/Nothing here.md" });
    expect(hidden.code).toBe("not_found");
    expect(hidden.message.replace("Diary zqcanary01", "X")).toBe(missing.message.replace("Nothing here", "X"));
  });

  test("writes outside Inbox/ are refused, and a move that must rewrite a hidden note is refused whole", async () => {
    const snapshot = diskOutsideInbox();
    const inbox = readFileSync(join(sb.vault, "Inbox/Linked.md"), "utf8");
    expect((await fail("note_write", { path: "Projects/Alpha.md", body: "x" })).code).toBe("forbidden");
    expect((await fail("note_write", { path: "Personal/New.md", body: "x" })).code).toBe("forbidden");
    // Hidden notes link to [[Linked]]: the move would rewrite them.
    const move = await fail("note_move", { from: "Inbox/Linked.md", to: "Inbox/Moved.md" });
    expect(move.code).toBe("forbidden");
    expect(JSON.stringify(move.toJSON())).not.toMatch(CANARY);
    // #shared is on hidden notes too: the rename is refused whole.
    expect((await fail("tag_rename", { from: "shared", to: "common" })).code).toBe("forbidden");
    expect(diskOutsideInbox()).toEqual(snapshot);
    expect(readFileSync(join(sb.vault, "Inbox/Linked.md"), "utf8")).toBe(inbox);
    // What the grant may write, it writes, and the event names the token (the audit log).
    await run("note_write", { path: "Inbox/New.md", body: "# New\n" });
    const logged = readFileSync(join(sb.dataDir, "events.log"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(logged.find((e) => e.kind === "note.created" && e.path === "Inbox/New.md")).toMatchObject({ surface: "rest", token_id: "tok_audit" });
  });

  test("a second wall: an answer that names a hidden file fails closed, whatever read it", async () => {
    // A context that hands the operation the whole index (as a narrowing bug would) under the grant.
    const granted = call();
    const bypass: typeof granted = Object.create(granted, { index: { get: () => ctx.index } });
    const err = await invokeOp(OPERATION_BY_NAME.get("note_list")!, bypass, {}).then(
      () => null,
      (e) => toIndxError(e),
    );
    expect(err?.code).toBe("internal");
    expect(JSON.stringify(err?.toJSON())).not.toMatch(CANARY);
  });

  test("the SSE stream and MCP subscriptions hear of visible changes only", async () => {
    const events: string[] = [];
    const adminEvents: string[] = [];
    const stream = async (token: string, into: string[]) => {
      const res = await fetch(`${server.url}/v1/events`, { headers: { authorization: `Bearer ${token}` } });
      const reader = res.body!.getReader();
      void (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          into.push(new TextDecoder().decode(value));
        }
      })();
      return reader;
    };
    const grantedStream = await stream(granted, events);
    const adminStream = await stream(admin, adminEvents);
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${granted}` } } });
    const client = new CheckedClient({ name: "sub", version: "1" });
    const notes: unknown[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void notes.push(n));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void notes.push(n));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, (n) => void notes.push(n));
    await client.connect(transport);
    await client.setLoggingLevel("debug");
    for (const uri of ["vault://Personal/**", "vault://**", "vault://graph", "vault://tags", vaultUri("Personal/Diary zqcanary01.md")])
      await client.subscribeResource({ uri });
    const aiSub = await client.subscribeResource({ uri: "ai://summary/glob/**" }).then(
      () => "subscribed",
      (e) => String(e),
    );
    expect(aiSub).toContain("folder grant");
    writeFileSync(join(sb.vault, "Personal/Diary zqcanary01.md"), `${LEAK_FILES["Personal/Diary zqcanary01.md"]}\nzqedit01\n`);
    // A hidden file that comes into being changes no list the token can see.
    writeFileSync(join(sb.vault, "Personal/zqcanary14 New.md"), "zebra zqcanary14\n");
    const until = (ok: () => boolean) => waitUntil(server, ok, 10_000);
    await until(() => adminEvents.join("").includes("zqcanary01") && adminEvents.join("").includes("zqcanary14"));
    // Then a visible change, so the granted side has something to hear.
    writeFileSync(join(sb.vault, "Projects/Beta.md"), `${LEAK_FILES["Projects/Beta.md"]}\nedited\n`);
    await until(() => events.join("").includes("Projects/Beta.md") && notes.length > 0);
    expect(adminEvents.join("")).toContain("zqcanary01");
    expect(events.join("")).toContain("Projects/Beta.md");
    expect(notes.length).toBeGreaterThan(0);
    expect(notes.filter((n) => (n as { method?: string }).method === "notifications/resources/list_changed")).toEqual([]);
    check("sse", events.join(""));
    check("mcp notifications", notes);
    await grantedStream.cancel();
    await adminStream.cancel();
    await client.close();
    expect(leaks).toEqual([]);
  }, 60_000);
});

describe("a granted token sees only its folders", () => {
  beforeAll(async () => {
    // The admin's outside edits above start the server's background embedding of those (hidden)
    // notes: that is the owner's indexing, not the token's doing. Embed what is pending now, so
    // what the fake hears from here on is what the granted calls sent.
    await ctx.embeddings.run(ctx.index);
    before = diskOutsideInbox();
    fake.reset();
  });

  test("every operation, in process through invokeOp, with inputs generated from its schema", async () => {
    const grant = compileGrant(GRANT);
    let answered = 0;
    for (const op of OPERATIONS)
      for (const input of inputsFor(op)) {
        const call = ctx.forCall({ scopes: new Set(SCOPES), grant, caller: { surface: "rest", token_id: "tok_leak" } });
        try {
          check(`${op.name} ${JSON.stringify(input)}`, (await invokeOp(op, call, input)).result, input);
          answered++;
        } catch (err) {
          check(`${op.name} ${JSON.stringify(input)} (error)`, toIndxError(err).toJSON(), input);
          if (process.env.LEAK_DEBUG) console.log(op.name, JSON.stringify(input).slice(0, 150), toIndxError(err).code, toIndxError(err).message.slice(0, 150));
        }
      }
    expect(leaks).toEqual([]);
    // The sweep must reach the operations, not stop at validation.
    expect(answered).toBeGreaterThan(OPERATIONS.length);
  }, 120_000);

  test("every REST route, with the granted token", async () => {
    for (const route of ROUTES)
      for (const input of inputsFor(route.op)) {
        const { url, init } = restRequestOf(route, input, granted);
        const res = await fetch(server.url + url, init);
        check(`${route.method} ${url}`, `${[...res.headers].join(" ")} ${await res.text()}`, input);
      }
    // The routes outside the operations.
    for (const path of ["/metrics", "/openapi.json", "/health", "/v1/nothing"]) {
      const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${granted}` } });
      check(`GET ${path}`, await res.text());
    }
    const metrics = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${granted}` } })).text();
    expect(metrics).toContain(`indx_index_notes ${visibleNotes()}`);
    expect(leaks).toEqual([]);
  }, 120_000);

  test("MCP over HTTP: instructions, every tool, resource, template, prompt and completion", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${granted}` } } });
    const client = new CheckedClient({ name: "leak", version: "1" });
    await client.connect(transport);
    try {
      await sweep(client, "http");
    } finally {
      await client.close();
    }
    expect(leaks).toEqual([]);
  }, 120_000);

  test("MCP over stdio served as the granted token (indx mcp --token)", async () => {
    const transport = new StdioClientTransport({ command: "bun", args: [MAIN, "mcp"], env: { ...sb.env, INDX_TOKEN: granted }, stderr: "ignore" });
    const client = new CheckedClient({ name: "leak-stdio", version: "1" });
    await client.connect(transport);
    try {
      await sweep(client, "stdio");
    } finally {
      await client.close();
    }
    expect(leaks).toEqual([]);
  }, 120_000);

  test("nothing outside Inbox/ changed on disk, and nothing hidden went to the model", () => {
    expect(diskOutsideInbox()).toEqual(before);
    const sent = fake.received.join("\n");
    expect(fake.received.length).toBeGreaterThan(0);
    const at = CANARY.exec(sent)?.index ?? -1;
    expect(at < 0 ? null : sent.slice(Math.max(0, at - 300), at + 100)).toBeNull();
  });
});
