import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client as Client2, StreamableHTTPClientTransport as Http2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as Stdio2 } from "@modelcontextprotocol/client/stdio";
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as Stdio1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as Http1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { BIN } from "../support/binary.ts";
import { type FakeAiServer, fakeChatEnv, startFakeAiServer } from "../support/fake-ai-server.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * The eight everyday jobs, done by two MCP clients nobody here wrote, against the compiled
 * binary: the 2.x SDK client speaking 2026-07-28 and the 1.x SDK client speaking 2025-11-25, each
 * over stdio and over Streamable HTTP. Build first: `bun run build`.
 */

type Json = Record<string, any>;

/** What the jobs need from a client, whichever SDK and era it is. */
interface Agent {
  version(): string | undefined;
  call(name: string, args: Json): Promise<Json>;
  /** Watches a resource (2026: subscriptions/listen; 2025: resources/subscribe); returns what arrived so far. */
  watch(uri: string): Promise<string[]>;
  close(): Promise<void>;
}

let fake: FakeAiServer;
const cleanups: (() => unknown)[] = [];

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/indx is missing: run `bun run build` first");
  fake = startFakeAiServer();
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  fake?.stop();
});

function vault(): { sb: Sandbox; env: Record<string, string> } {
  const sb = sandbox({}, { fromDemo: true });
  cleanups.push(() => sb.cleanup());
  return { sb, env: { ...sb.env, ...fakeChatEnv(fake) } };
}

/** `indx serve` on an ephemeral port; the URL and the admin token. */
async function serve(env: Record<string, string>): Promise<{ url: string; token: string }> {
  const proc = Bun.spawn([BIN, "serve", "--port", "0"], { env, stdout: "ignore", stderr: "pipe" });
  cleanups.push(async () => {
    proc.kill();
    await proc.exited;
  });
  const reader = proc.stderr.getReader();
  let seen = "";
  let url = "";
  while (!url) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`indx serve did not start: ${seen}`);
    seen += new TextDecoder().decode(value);
    url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(seen)?.[1] ?? "";
  }
  reader.releaseLock();
  const token = Bun.spawnSync([BIN, "config", "reveal-api-key"], { env }).stdout.toString().trim();
  return { url, token };
}

const structured = (r: Json): Json => {
  if (r.isError) throw new Error(`tool failed: ${r.content?.[0]?.text}`);
  return r.structuredContent as Json;
};

async function modernAgent(transport: "stdio" | "http", env: Record<string, string>): Promise<Agent> {
  const client = new Client2({ name: "sdk2-agent", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  if (transport === "stdio") await client.connect(new Stdio2({ command: BIN, args: ["mcp"], env, stderr: "ignore" }));
  else {
    const { url, token } = await serve(env);
    await client.connect(new Http2(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  }
  const seen: string[] = [];
  client.setNotificationHandler("notifications/resources/updated", (n) => void seen.push(n.params.uri));
  const subs: { close(): Promise<void> }[] = [];
  return {
    version: () => client.getNegotiatedProtocolVersion(),
    call: async (name, args) => structured((await client.callTool({ name, arguments: args })) as Json),
    async watch(uri) {
      subs.push(await client.listen({ resourceSubscriptions: [uri] }));
      return seen;
    },
    async close() {
      for (const s of subs) await s.close().catch(() => {});
      await client.close();
    },
  };
}

async function legacyAgent(transport: "stdio" | "http", env: Record<string, string>): Promise<Agent> {
  const client = new Client1({ name: "sdk1-agent", version: "1.0.0" });
  const t: Transport =
    transport === "stdio"
      ? new Stdio1({ command: BIN, args: ["mcp"], env, stderr: "ignore" })
      : await serve(env).then(({ url, token }) => new Http1(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  // The 1.x client tells its transport the version the server chose at initialize: recorded here.
  let negotiated: string | undefined;
  const own = t.setProtocolVersion?.bind(t);
  t.setProtocolVersion = (v: string) => {
    negotiated = v;
    own?.(v);
  };
  await client.connect(t);
  const seen: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void seen.push(n.params.uri));
  return {
    version: () => negotiated,
    call: async (name, args) => structured((await client.callTool({ name, arguments: args })) as Json),
    async watch(uri) {
      await client.subscribeResource({ uri });
      return seen;
    },
    close: () => client.close(),
  };
}

async function until(check: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await Bun.sleep(50);
  return check();
}

/** The eight jobs, in the order an agent's day might bring them. */
async function everydayJobs(agent: Agent, sb: Sandbox): Promise<void> {
  // 1. Find and read.
  const found = await agent.call("vault_search", { q: "rollback runbook" });
  expect(found.results[0].path).toBe("Reference/Runbook.md");
  const read = await agent.call("note_read", { path: found.results[0].path });
  expect(JSON.stringify(read)).toContain("roll");

  // 2. Append a task to today's daily note.
  const daily = await agent.call("daily_note", { create: true });
  await agent.call("note_patch", { path: daily.path, ops: [{ op: "append_body", markdown: "- [ ] call the printer about the launch posters" }] });
  expect(readFileSync(join(sb.vault, daily.path), "utf8")).toContain("- [ ] call the printer about the launch posters");

  // 3. Rename a tag.
  const renamed = await agent.call("tag_rename", { from: "person", to: "people" });
  expect(JSON.stringify(renamed)).toContain("People/");
  expect((await agent.call("tag_notes", { tag: "#people" })).notes.length).toBeGreaterThan(0);
  expect((await agent.call("tag_notes", { tag: "#person" })).notes).toHaveLength(0);

  // 4. Move a note and check its backlinks follow.
  const before = await agent.call("link_backlinks", { path: "People/Ada Lovelace.md" });
  expect(before.count).toBeGreaterThan(0);
  await agent.call("note_move", { from: "People/Ada Lovelace.md", to: "People/Archive/Ada Lovelace.md" });
  const after = await agent.call("link_backlinks", { path: "People/Archive/Ada Lovelace.md" });
  expect(after.count).toBe(before.count);

  // 5. A project's context within 3,000 tokens.
  const context = await agent.call("activate_context", { path: "Projects/Apollo Launch.md", max_tokens: 3000 });
  expect(context.tokens).toBeLessThanOrEqual(3000);
  expect(JSON.stringify(context)).toContain("Apollo");

  // 6. Ask, with verified citations, on the fake model.
  const answer = await agent.call("ai_ask", { question: "How do we roll back the release?", cache: false });
  expect(answer.citations[0].path).toBe("Reference/Runbook.md");

  // 7. Query a base.
  const base = await agent.call("base_query", { path: "Projects.base", view: "By status" });
  expect(base.rows.length).toBeGreaterThan(0);

  // 8. React to an outside edit through a subscription.
  const seen = await agent.watch("vault://Daily/**");
  sb.write("Daily/2026-02-01.md", "# 2026-02-01\n\n- [ ] an editor wrote this\n");
  expect(await until(() => seen.includes("vault://Daily/2026-02-01.md"))).toBe(true);
  expect(seen.every((u) => u.startsWith("vault://Daily/"))).toBe(true);
}

describe("the eight everyday jobs", () => {
  for (const transport of ["stdio", "http"] as const) {
    test(`the 2.x SDK client, 2026-07-28, over ${transport}`, async () => {
      const { sb, env } = vault();
      const agent = await modernAgent(transport, env);
      try {
        expect(agent.version()).toBe("2026-07-28");
        await everydayJobs(agent, sb);
      } finally {
        await agent.close();
      }
    });

    test(`the 1.x SDK client, 2025-11-25, over ${transport}`, async () => {
      const { sb, env } = vault();
      const agent = await legacyAgent(transport, env);
      try {
        expect(agent.version()).toBe("2025-11-25");
        await everydayJobs(agent, sb);
      } finally {
        await agent.close();
      }
    });
  }
});
