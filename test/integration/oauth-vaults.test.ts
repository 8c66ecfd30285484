import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { authorizeCode, exchange, openConsent, REDIRECT, submitConsent, tokenRequest } from "../support/oauth.ts";
import { MemoryProvider } from "../support/oauth-provider.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * OAuth for named vaults (docs/decisions.md, "OAuth for named vaults"): /mcp/{name} is a protected
 * resource of its own. The MCP SDK's own OAuth client provider discovers it from the 401, the
 * owner approves on the consent page (posted directly here; test/e2e/oauth-browser.test.ts drives
 * the page in Chromium), and the token it gets works on that vault only.
 */
const MAIN = `${import.meta.dir}/../../src/main.ts`;
let sb: Sandbox;
let server: RunningServer;
let base: string;
let adminKey: string;
const dir = (name: string) => join(sb.dir, name);

function cli(args: string[]): any {
  const run = Bun.spawnSync(["bun", MAIN, ...args, "--json"], { env: sb.env, cwd: sb.dir });
  if (run.exitCode !== 0) throw new Error(run.stderr.toString());
  return JSON.parse(run.stdout.toString());
}

beforeAll(async () => {
  sb = sandbox({ "Default.md": "# Default\n\nA dodo.\n" });
  let config = "";
  for (const [name, text] of [
    ["work", "# Plan\n\nA walrus plan.\n"],
    ["personal", "# Day\n\nA narwhal day.\n"],
  ] as const) {
    mkdirSync(dir(name), { recursive: true });
    writeFileSync(join(dir(name), "Note.md"), text);
    mkdirSync(dir(`data-${name}`), { recursive: true });
    config += `[vaults.${name}]\npath = ${JSON.stringify(dir(name))}\ndata_dir = ${JSON.stringify(dir(`data-${name}`))}\n\n`;
  }
  const path = loadConfig({ env: sb.env }).path;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, config);
  server = await startServer(sb.context({ "server.read_workers": 0 }), { host: "127.0.0.1", port: 0, watch: false, notice: () => {} });
  base = server.url;
  adminKey = loadConfig({ env: sb.env }).str("server.api_key") ?? "";
  expect(adminKey).not.toBe("");
}, 60_000);

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
}, 60_000);

const mcpInit = (path: string, token: string) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  });

test("/mcp/work answers 401 with its own path-suffixed resource metadata (RFC 9728)", async () => {
  const res = await fetch(`${base}/mcp/work`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  expect(res.status).toBe(401);
  const challenge = res.headers.get("www-authenticate") ?? "";
  expect(challenge).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/mcp/work"`);
  const prm = (await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp/work`)).json()) as Record<string, unknown>;
  expect(prm.resource).toBe(`${base}/mcp/work`);
  expect(prm.authorization_servers).toEqual([base]);
  // The default vault's stays the server's own; an unknown vault has none.
  expect(((await (await fetch(`${base}/.well-known/oauth-protected-resource`)).json()) as Record<string, unknown>).resource).toBe(base);
  expect((await fetch(`${base}/.well-known/oauth-protected-resource/mcp/nowhere`)).status).toBe(404);
  // The default vault's challenge is unchanged.
  const dflt = await fetch(`${base}/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  expect(dflt.headers.get("www-authenticate") ?? "").toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource"`);
}, 60_000);

test("the SDK's provider gets a token for /mcp/work alone: refused on /mcp and /mcp/personal; refreshed; listed and revoked with --vault work", async () => {
  const mcpUrl = new URL(`${base}/mcp/work`);
  const provider = new MemoryProvider(REDIRECT, "Work agent");
  const first = new Client({ name: "oauth-vaults", version: "1.0.0" });
  await expect(first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }))).rejects.toThrow();
  const authUrl = provider.authorizationUrl;
  if (!authUrl) throw new Error("the SDK did not ask to authorize");
  expect(authUrl.searchParams.get("resource")).toBe(`${base}/mcp/work`);

  // The consent page names the vault; a code from `indx auth approve --vault work` approves it.
  const page = await openConsent(base, Object.fromEntries(authUrl.searchParams) as never);
  expect(page.status).toBe(200);
  expect(page.html).toContain("your vault <strong>work</strong>");
  const { code: approval } = cli(["auth", "approve", "--vault", "work"]);
  const decided = await submitConsent(base, page, { owner_proof: approval, access: "read" });
  expect(decided.status).toBe(303);
  const code = new URL(decided.headers.get("location") ?? "").searchParams.get("code") ?? "";
  expect(code).toMatch(/^indx_ac_/);

  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await transport.finishAuth(code);
  const access = provider.saved?.access_token ?? "";
  expect(access).toMatch(/^indx_at_/);
  const client = new Client({ name: "oauth-vaults", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  const read = await client.callTool({ name: "note_read", arguments: { path: "Note.md" } });
  expect(read.isError).toBeFalsy();
  expect(JSON.stringify(read)).toContain("walrus");
  await client.close();

  // RFC 8707: minted for <base>/mcp/work, so no other vault takes it; its REST routes do (same vault).
  expect((await mcpInit("/mcp", access)).status).toBe(401);
  const personal = await mcpInit("/mcp/personal", access);
  expect(personal.status).toBe(401);
  expect(personal.headers.get("www-authenticate") ?? "").toContain("/.well-known/oauth-protected-resource/mcp/personal");
  expect(await personal.text()).not.toContain("narwhal");
  expect((await fetch(`${base}/v1/notes/Default.md`, { headers: { authorization: `Bearer ${access}` } })).status).toBe(401);
  expect((await fetch(`${base}/v1/vaults/work/notes/Note.md`, { headers: { authorization: `Bearer ${access}` } })).status).toBe(200);

  // A refresh through the SDK (the token endpoint finds the grant in work's store) still serves work.
  expect(await auth(provider, { serverUrl: mcpUrl })).toBe("AUTHORIZED");
  const refreshed = provider.saved?.access_token ?? "";
  expect(refreshed).not.toBe(access);
  const again = new Client({ name: "oauth-vaults", version: "1.0.0" });
  await again.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  expect((await again.callTool({ name: "note_read", arguments: { path: "Note.md" } })).isError).toBeFalsy();
  await again.close();

  // The owner sees it under the vault it is for, and only there; revoke ends it.
  const listed = cli(["token", "list", "--vault", "work"]) as { id: string; kind: string; name: string; resource?: string }[];
  const grant = listed.find((t) => t.kind === "oauth");
  expect(grant).toMatchObject({ name: "Work agent", resource: `${base}/mcp/work` });
  expect((cli(["token", "list"]) as { id: string }[]).some((t) => t.id === grant?.id)).toBe(false);
  cli(["token", "revoke", grant?.id ?? "", "--vault", "work"]);
  expect((await mcpInit("/mcp/work", refreshed)).status).toBe(401);

  // The audit trail is work's own, and names the vault.
  const log = readFileSync(join(dir("data-work"), "events.log"), "utf8");
  const granted = log
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((e) => e.kind === "auth.granted");
  expect(granted.auth).toMatchObject({ vault: "work", grant_id: grant?.id, scopes: ["vault:read"] });
  expect(log).not.toContain(access);
  expect(log).not.toContain(refreshed);
  // `indx events --vault work` shows it; the default vault's trail does not.
  const events = (...args: string[]) => Bun.spawnSync(["bun", MAIN, "events", ...args, "--json"], { env: sb.env, cwd: sb.dir }).stdout.toString();
  expect(events("--vault", "work", "--kinds", "auth.granted")).toContain(`"grant_id":"${grant?.id}"`);
  expect(events("--kinds", "auth.granted")).not.toContain(grant?.id ?? "-");
}, 60_000);

test("the default vault's OAuth token is refused on named vaults", async () => {
  const got = await authorizeCode(base, adminKey);
  const tokens = await exchange(base, got);
  expect(tokens.status).toBe(200);
  const access = tokens.body.access_token as string;
  expect((await mcpInit("/mcp", access)).status).toBe(200);
  const work = await mcpInit("/mcp/work", access);
  expect(work.status).toBe(401);
  expect(await work.text()).not.toContain("walrus");
  expect((await fetch(`${base}/v1/vaults/work/notes/Note.md`, { headers: { authorization: `Bearer ${access}` } })).status).toBe(401);
}, 60_000);

test("a code for work cannot be exchanged for another resource, and an unknown vault is not a resource", async () => {
  const clientId = (
    (await (
      await fetch(`${base}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "x", redirect_uris: [REDIRECT] }),
      })
    ).json()) as { client_id: string }
  ).client_id;
  const { createHash, randomBytes } = await import("node:crypto");
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const params = { client_id: clientId, redirect_uri: REDIRECT, response_type: "code", code_challenge: challenge, code_challenge_method: "S256" };
  const unknown = await openConsent(base, { ...params, resource: `${base}/mcp/nowhere` });
  expect(unknown.status).toBe(303);
  expect(new URL(unknown.location ?? "").searchParams.get("error")).toBe("invalid_target");
  const page = await openConsent(base, { ...params, resource: `${base}/mcp/work` });
  // A wrong proof is audited in work's own trail, by its name.
  expect((await submitConsent(base, page, { owner_proof: "WRONG-CODE-0000", access: "read" })).status).toBe(401);
  expect(readFileSync(join(dir("data-work"), "events.log"), "utf8")).toContain('"reason":"owner_proof","vault":"work"');
  const decided = await submitConsent(base, page, { owner_proof: adminKey, access: "read" });
  const code = new URL(decided.headers.get("location") ?? "").searchParams.get("code") ?? "";
  for (const resource of [`${base}/mcp/personal`, `${base}/mcp`]) {
    const bad = await tokenRequest(base, {
      grant_type: "authorization_code",
      code,
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      resource,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("invalid_target");
  }
  // `/v1/vaults/work` names the same resource as `/mcp/work`.
  const ok = await tokenRequest(base, {
    grant_type: "authorization_code",
    code,
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    resource: `${base}/v1/vaults/work`,
  });
  expect(ok.status).toBe(200);

  // The grant lives in work's store: a refresh finds it there, a spent refresh token revokes the family.
  const refresh = (token: string) => tokenRequest(base, { grant_type: "refresh_token", refresh_token: token, client_id: clientId });
  const rotated = await refresh(ok.body.refresh_token);
  expect(rotated.status).toBe(200);
  expect((await mcpInit("/mcp/work", rotated.body.access_token)).status).toBe(200);
  const reused = await refresh(ok.body.refresh_token);
  expect(reused.body.error).toBe("invalid_grant");
  expect((await mcpInit("/mcp/work", rotated.body.access_token)).status).toBe(401);
  expect(readFileSync(join(dir("data-work"), "events.log"), "utf8")).toContain('"reason":"refresh_token_reused","vault":"work"');
}, 60_000);

test("RFC 7009: a client revokes its named vault's token at the one revocation endpoint", async () => {
  const clientId = (
    (await (
      await fetch(`${base}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "y", redirect_uris: [REDIRECT] }),
      })
    ).json()) as { client_id: string }
  ).client_id;
  const { createHash, randomBytes } = await import("node:crypto");
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const page = await openConsent(base, {
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: "code",
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource: `${base}/mcp/personal`,
  });
  const decided = await submitConsent(base, page, { owner_proof: adminKey, access: "read" });
  const code = new URL(decided.headers.get("location") ?? "").searchParams.get("code") ?? "";
  const got = await tokenRequest(base, { grant_type: "authorization_code", code, client_id: clientId, redirect_uri: REDIRECT, code_verifier: verifier });
  expect(got.status).toBe(200);
  expect((await mcpInit("/mcp/personal", got.body.access_token)).status).toBe(200);
  const revoked = await fetch(`${base}/oauth/revoke`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: got.body.access_token, client_id: clientId }),
  });
  expect(revoked.status).toBe(200);
  expect((await mcpInit("/mcp/personal", got.body.access_token)).status).toBe(401);
  expect(readFileSync(join(dir("data-personal"), "events.log"), "utf8")).toContain('"reason":"revoked_by_client","vault":"personal"');
}, 60_000);
