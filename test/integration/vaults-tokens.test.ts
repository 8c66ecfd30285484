import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { TokenStore } from "../../src/auth/tokens.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { CheckedClient } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * A token for several vaults (docs/decisions.md, "A token for several vaults"): made by the CLI
 * with `--vaults work,personal`, it reaches both vaults' REST and MCP with each vault's own folder
 * grant, a third vault answers it not_found (never forbidden), and one revoke ends it on both.
 */
const MAIN = `${import.meta.dir}/../../src/main.ts`;
let sb: Sandbox;
let server: RunningServer;
let multi: { token: string; id: string };
const dir = (name: string) => join(sb.dir, name);

function cli(args: string[]): { code: number; out: string; err: string } {
  const run = Bun.spawnSync(["bun", MAIN, ...args], { env: sb.env, cwd: sb.dir });
  return { code: run.exitCode, out: run.stdout.toString(), err: run.stderr.toString() };
}

beforeAll(async () => {
  sb = sandbox({ "Default.md": "# Default\n\nA dodo in the default vault.\n" });
  const notes: Record<string, Record<string, string>> = {
    work: { "Projects/Plan.md": "# Plan\n\nA walrus plan.\n", "HR/Salaries.md": "# Salaries\n\nA walrus salary.\n" },
    personal: { "Journal/Day.md": "# Day\n\nA narwhal day.\n", "Health/Doctor.md": "# Doctor\n\nA narwhal doctor.\n" },
    third: { "Note.md": "# Third\n\nA pangolin.\n" },
  };
  let config = "";
  for (const [name, files] of Object.entries(notes)) {
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir(name), rel)), { recursive: true });
      writeFileSync(join(dir(name), rel), text);
    }
    mkdirSync(dir(`data-${name}`), { recursive: true });
    config += `[vaults.${name}]\npath = ${JSON.stringify(dir(name))}\ndata_dir = ${JSON.stringify(dir(`data-${name}`))}\n\n`;
  }
  const path = loadConfig({ env: sb.env }).path;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, config);
  // Work: Projects only; personal: Journal only, by the vault-prefixed syntax.
  const made = cli([
    "token",
    "create",
    "--name",
    "both",
    "--vaults",
    "work,personal",
    "--scopes",
    "vault:read,vault:write",
    "--read",
    "work:Projects/**",
    "--read",
    "personal:Journal/**",
    "--json",
  ]);
  expect(made.err).toBe("");
  expect(made.code).toBe(0);
  const body = JSON.parse(made.out);
  multi = { token: body.data?.token ?? body.token, id: body.data?.id ?? body.id };
  expect(multi.token).toStartWith("indx_");
  server = await startServer(sb.context({ "index.debounce_ms": 20 }), { host: "127.0.0.1", port: 0, notice: () => {} });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
}, 60_000);

async function get(path: string, token: string): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), text };
}

test("the token reads both vaults over REST, each within its own vault's folder grant", async () => {
  const work = await get("/v1/vaults/work/notes/Projects/Plan.md", multi.token);
  expect(work.status).toBe(200);
  expect(work.text).toContain("walrus plan");
  const personal = await get("/v1/vaults/personal/notes/Journal/Day.md", multi.token);
  expect(personal.status).toBe(200);
  expect(personal.text).toContain("narwhal day");
  // Each vault's grant holds there: outside it is not_found, and the other vault's grant does not leak across.
  for (const path of ["/v1/vaults/work/notes/HR/Salaries.md", "/v1/vaults/personal/notes/Health/Doctor.md", "/v1/vaults/work/notes/Journal/Day.md"]) {
    const hidden = await get(path, multi.token);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe("not_found");
  }
  const search = await get("/v1/vaults/personal/search?q=narwhal", multi.token);
  expect(search.status).toBe(200);
  expect(search.text).toContain("Journal/Day.md");
  expect(search.text).not.toContain("Doctor");
}, 60_000);

test("a third vault and the default vault answer it not_found / unauthorized, never forbidden or data", async () => {
  const third = await get("/v1/vaults/third/notes/Note.md", multi.token);
  expect(third.status).toBe(404);
  expect(third.body.error.code).toBe("not_found");
  expect(third.text).not.toContain("pangolin");
  const mcpThird = await fetch(`${server.url}/mcp/third`, {
    method: "POST",
    headers: { authorization: `Bearer ${multi.token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  });
  expect(mcpThird.status).toBe(404);
  expect(((await mcpThird.json()) as { error: { code: string } }).error.code).toBe("not_found");
  // The default vault keeps its own tokens.json: a named vaults' token is unknown there.
  const dflt = await get("/v1/notes/Default.md", multi.token);
  expect(dflt.status).toBe(401);
  expect(dflt.text).not.toContain("dodo");
}, 60_000);

test("the token reaches both vaults over MCP with the SDK's client, each within its grant", async () => {
  for (const [name, visible, hidden] of [
    ["work", "Projects/Plan.md", "HR/Salaries.md"],
    ["personal", "Journal/Day.md", "Health/Doctor.md"],
  ] as const) {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/${name}`), {
      requestInit: { headers: { authorization: `Bearer ${multi.token}` } },
    });
    const client = new CheckedClient({ name: "multi", version: "0" });
    await client.connect(transport);
    try {
      const seen = await client.callTool({ name: "note_read", arguments: { path: visible } });
      expect(seen.isError).not.toBe(true);
      const refused = await client.callTool({ name: "note_read", arguments: { path: hidden } });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused)).toContain("not_found");
      expect(JSON.stringify(refused)).not.toContain("forbidden");
      const list = await client.callTool({ name: "note_list", arguments: {} });
      expect(JSON.stringify(list)).toContain(visible);
      expect(JSON.stringify(list)).not.toContain(hidden);
    } finally {
      await client.close();
    }
  }
}, 60_000);

test("a single-vault token keeps working as before beside it", async () => {
  const single = new TokenStore(dir("data-work")).create("solo", ["vault:read"]).token;
  expect((await get("/v1/vaults/work/notes/HR/Salaries.md", single)).status).toBe(200);
  expect((await get("/v1/vaults/personal/notes/Journal/Day.md", single)).status).toBe(404);
}, 60_000);

test("token list shows its vaults; one revoke ends it on every vault", async () => {
  const listed = cli(["token", "list", "--vault", "personal", "--json"]);
  expect(listed.code).toBe(0);
  const rows = JSON.parse(listed.out);
  const mine = (rows.data ?? rows).find((t: { id: string }) => t.id === multi.id);
  expect(mine.vaults.map((v: { name: string }) => v.name)).toEqual(["work", "personal"]);
  expect(mine.vaults[1].grant).toEqual({ read: ["Journal/**"] });
  expect(listed.out).not.toContain(multi.token);
  // Not listed on a vault it does not reach.
  expect(cli(["token", "list", "--vault", "third", "--json"]).out).not.toContain(multi.id);
  const revoked = cli(["token", "revoke", multi.id, "--vault", "work"]);
  expect(revoked.err).toBe("");
  expect(revoked.code).toBe(0);
  for (const path of ["/v1/vaults/work/notes/Projects/Plan.md", "/v1/vaults/personal/notes/Journal/Day.md"]) {
    const after = await get(path, multi.token);
    expect(after.status).toBe(404);
    expect(after.text).not.toContain("walrus");
    expect(after.text).not.toContain("narwhal");
  }
}, 60_000);

test("bad --vaults input is a typed error naming nothing on disk", () => {
  const unknown = cli(["token", "create", "--name", "x", "--vaults", "work,nowhere", "--json"]);
  expect(unknown.code).not.toBe(0);
  expect(unknown.out + unknown.err).toContain("not_found");
  expect(unknown.out + unknown.err).not.toContain(sb.dir);
  const foreign = cli(["token", "create", "--name", "x", "--vaults", "work,personal", "--read", "third:Note.md", "--json"]);
  expect(foreign.code).not.toBe(0);
  expect(foreign.out + foreign.err).toContain("validation_failed");
  const one = cli(["token", "create", "--name", "x", "--vaults", "work", "--json"]);
  expect(one.code).not.toBe(0);
  expect(one.out + one.err).toContain("validation_failed");
}, 60_000);
