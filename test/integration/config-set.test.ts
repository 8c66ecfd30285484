import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { TokenStore } from "../../src/auth/tokens.ts";
import { CONFIG_KEYS } from "../../src/config/keys.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { vaultConfigSet } from "../../src/maintenance/config-set-ops.ts";
import { vaultConfigGet } from "../../src/maintenance/ops.ts";
import { McpHub } from "../../src/mcp/hub.ts";
import { createSession, type McpSession } from "../../src/mcp/session.ts";
import type { Scope } from "../../src/ops/define.ts";
import { assertCliOutput, assertRestOutput, CheckedClient, commandOps, invoke, rejection } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** vault_config_set: one op behind REST, MCP (admin) and `indx config set`, typed, and refusing what only the machine's owner may set. */

const MAIN = `${import.meta.dir}/../../src/main.ts`;

let sb: Sandbox;
let server: RunningServer;
let admin: string;
let writer: string;
let hub: McpHub;
const sessions: McpSession[] = [];
const clients: CheckedClient[] = [];

beforeAll(async () => {
  sb = sandbox({ "Note.md": "# Note\n" });
  // The environment sets one key, so a write of it to the file is shadowed.
  sb.env.INDX_SEARCH_RERANK = "false";
  const ctx = sb.context();
  server = await startServer(ctx, { host: "127.0.0.1", port: 0, notice: () => {}, watch: false });
  admin = loadConfig({ env: sb.env }).str("server.api_key")!;
  writer = new TokenStore(sb.dataDir).create("writer", ["vault:read", "vault:write"]).token;
  hub = new McpHub(ctx);
});

afterAll(async () => {
  for (const c of clients) await c.close();
  for (const s of sessions) await s.close();
  hub?.close();
  await server?.stop();
  sb?.cleanup();
});

async function mcp(scopes: Scope[]) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const session = await createSession(hub, { scopes: new Set(scopes) });
  await session.server.connect(serverSide);
  const client = new CheckedClient({ name: "config-set", version: "0" });
  await client.connect(clientSide);
  sessions.push(session);
  clients.push(client);
  return client;
}

async function put(body: unknown, token = admin) {
  const res = await fetch(`${server.url}/v1/vault/config`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  expect(text).not.toContain(sb.dir);
  const json = JSON.parse(text);
  assertRestOutput("PUT", "/v1/vault/config", json);
  return { status: res.status, body: json };
}

/** The configuration as a fresh process would load it from the file. */
const fresh = (key: string) => {
  const cfg = loadConfig({ env: sb.env });
  return { value: cfg.get(key), source: cfg.source(key) };
};
const configText = () => {
  const path = loadConfig({ env: sb.env }).path;
  return existsSync(path) ? readFileSync(path, "utf8") : "";
};

describe("vault_config_set", () => {
  test("writes a typed value to the config file, reports what it replaced, and null removes it", async () => {
    const ctx = sb.context();
    try {
      const set = await invoke(vaultConfigSet, ctx, { key: "search.default_limit", value: 25 });
      expect(set).toEqual({ key: "search.default_limit", value: 25, previous: null, warnings: [] });
      expect(fresh("search.default_limit")).toEqual({ value: 25, source: "file" });
      const again = await invoke(vaultConfigSet, ctx, { key: "search.default_limit", value: "30" });
      expect(again).toMatchObject({ value: 30, previous: 25 });
      const list = await invoke(vaultConfigSet, ctx, { key: "index.exclude", value: ["Archive/**", "*.tmp.md"] });
      expect(list.value).toEqual(["Archive/**", "*.tmp.md"]);
      expect(fresh("index.exclude").value).toEqual(["Archive/**", "*.tmp.md"]);
      const removed = await invoke(vaultConfigSet, ctx, { key: "search.default_limit", value: null });
      expect(removed).toMatchObject({ value: null, previous: 30 });
      expect(fresh("search.default_limit")).toEqual({ value: 10, source: "default" });
      // The running process keeps the configuration it loaded.
      expect((await invoke(vaultConfigGet, ctx, {})).config["search.default_limit"]!.value).toBe(10);
    } finally {
      ctx.close();
    }
  });

  test("a value of the wrong type, an unknown key or a provider indx does not know is validation_failed; nothing is written", async () => {
    const ctx = sb.context();
    try {
      const before = configText();
      for (const [key, value, reason] of [
        ["search.default_limit", "many", undefined],
        ["search.default_limit", -3, undefined],
        ["ai.cache.enabled", "perhaps", undefined],
        ["ai.provider", "gpt", undefined],
        ["search.defualt_limit", 3, "unknown_key"],
        ["server.api_key", "indx_x", "secret"],
        ["embeddings.openai_api_key", "sk-x", "secret"],
      ] as const) {
        const e = await rejection(invoke(vaultConfigSet, ctx, { key, value }));
        expect({ key, code: e.code }).toEqual({ key, code: "validation_failed" });
        if (reason) expect(e.details?.reason).toBe(reason);
      }
      expect(configText()).toBe(before);
    } finally {
      ctx.close();
    }
  });

  test("paths, server settings, endpoint URLs and test switches are refused remotely (forbidden, local_only)", async () => {
    const ctx = sb.context();
    try {
      const before = configText();
      const refused = ["vault", "data_dir", "ai.fixtures_dir", "server.auth", "server.host", "server.cors_origins", "embeddings.ollama_url"];
      refused.push("embeddings.openai_base_url", "ai.gateway_url", "ai.test_record", "ai.test_replay");
      for (const key of refused) {
        const e = await rejection(invoke(vaultConfigSet, ctx, { key, value: null }));
        expect({ key, code: e.code, reason: e.details?.reason }).toEqual({ key, code: "forbidden", reason: "local_only" });
      }
      expect(configText()).toBe(before);
      // Every other key that is not a secret can be set remotely: the refusals are these and no more.
      const settable = CONFIG_KEYS.filter((k) => !k.secret && !refused.includes(k.key) && !k.key.startsWith("server."));
      expect(settable.map((k) => k.key)).toContain("ai.allow_globs");
      for (const k of settable) expect((await invoke(vaultConfigSet, ctx, { key: k.key, value: null })).value).toBeNull();
    } finally {
      ctx.close();
    }
  });

  test("a key the environment overrides is written with a config_overridden warning", async () => {
    const ctx = sb.context();
    try {
      const r = await invoke(vaultConfigSet, ctx, { key: "search.rerank", value: true });
      expect(r.warnings.map((w) => w.code)).toEqual(["config_overridden"]);
      expect(r.warnings[0]!.message).toContain("INDX_SEARCH_RERANK");
      expect(fresh("search.rerank")).toEqual({ value: false, source: "env" });
    } finally {
      ctx.close();
    }
  });

  test("REST: PUT /v1/vault/config with an admin token; a write token is 403; typed errors are 400 and 403", async () => {
    const ok = await put({ key: "search.rerank_candidates", value: 12 });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ key: "search.rerank_candidates", value: 12 });
    expect(fresh("search.rerank_candidates").value).toBe(12);
    expect((await put({ key: "search.rerank_candidates", value: 13 }, writer)).status).toBe(403);
    expect(fresh("search.rerank_candidates").value).toBe(12);
    expect((await put({ key: "search.rerank_candidates", value: { deep: 1 } })).status).toBe(400);
    expect((await put({ key: "search.rerank_candidates" })).status).toBe(400);
    const local = await put({ key: "vault", value: "/" });
    expect(local.status).toBe(403);
    expect(local.body.error.details.reason).toBe("local_only");
  });

  test("MCP: the tool is for admin sessions only; it answers as the core does", async () => {
    const plain = await mcp(["vault:read", "vault:write"]);
    expect((await plain.listTools()).tools.map((t) => t.name)).not.toContain("vault_config_set");
    expect((await plain.callTool({ name: "vault_config_set", arguments: { key: "search.rerank_timeout_ms", value: 9000 } })).isError).toBe(true);
    const owner = await mcp(["vault:admin"]);
    const tool = (await owner.listTools()).tools.find((t) => t.name === "vault_config_set");
    expect(tool?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    const r = await owner.callTool({ name: "vault_config_set", arguments: { key: "search.rerank_timeout_ms", value: 9000 } });
    expect(r.structuredContent).toEqual({ key: "search.rerank_timeout_ms", value: 9000, previous: null, warnings: [] });
    const refused = await owner.callTool({ name: "vault_config_set", arguments: { key: "server.port", value: 1 } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("local_only");
  });

  test("the CLI's config set is the same operation: same output, and the machine's owner may set what a remote caller may not", async () => {
    const commands = await commandOps();
    expect(commands.get("config set")).toBe(vaultConfigSet);
    const cli = (args: string[]) => {
      const p = Bun.spawnSync(["bun", MAIN, ...args], { env: sb.env });
      const stdout = p.stdout.toString();
      if (stdout.startsWith("{")) assertCliOutput(commands, args, stdout);
      return { code: p.exitCode, stdout, stderr: p.stderr.toString() };
    };
    const set = cli(["config", "set", "search.default_limit", "7"]);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ key: "search.default_limit", value: 7, previous: null, warnings: [] });
    const port = cli(["config", "set", "server.port", "9100"]);
    expect(port.code).toBe(0);
    expect(fresh("server.port").value).toBe(9100);
    const typo = cli(["config", "set", "search.defualt_limit", "3"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("Did you mean search.default_limit?");
    expect(cli(["config", "set", "server.api_key", "x"]).code).toBe(2);
    expect(cli(["config", "set", "ai.provider", "gpt"]).code).toBe(2);
  });
});
