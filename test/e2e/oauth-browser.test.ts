import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { loadConfig } from "../../src/config/load.ts";
import { BIN, serveBinary } from "../support/binary.ts";
import { Browser, type Browser as BrowserT, findChromium, type Page } from "../support/chromium.ts";
import { MemoryProvider } from "../support/oauth-provider.ts";
import { makeCaSignedCert, OPENSSL } from "../support/tls-certs.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * A client nobody here wrote completes the OAuth flow against the compiled binary: the MCP SDK's
 * own client auth (discovery from the 401, dynamic registration, PKCE, the resource indicator, the
 * code exchange, a refresh) with the owner approving on the consent page in headless Chromium,
 * keyboard only, with a code from `indx auth approve`. Then tools/call with the OAuth token.
 *
 * Twice: over plain http on 127.0.0.1, and over https with TLS in the binary (server.tls_cert /
 * server.tls_key) and a certificate from a test CA made by openssl here. Over https nothing trusts
 * "any certificate": the SDK's fetch trusts the test CA, Chromium the served key's hash.
 * INDX_OAUTH_SCREENSHOTS=<dir> saves the consent page at desktop and 375 px widths there.
 */
const CHROMIUM = findChromium();
if (!CHROMIUM) console.log("SKIP oauth-browser: no chromium binary (apt-get install -y chromium, or set INDX_CHROMIUM)");
if (CHROMIUM && !OPENSSL) console.log("SKIP oauth-browser over https: no openssl binary to make the test certificate");

/** One running set-up: the binary serving a demo vault, a loopback redirect target, a browser. */
interface Stack {
  sb: Sandbox;
  serve: Bun.Subprocess<"ignore", "pipe", "pipe">;
  base: string;
  browser: BrowserT;
  callback: ReturnType<typeof Bun.serve>;
  codes: ((url: URL) => void)[];
  /** The fetch the SDK uses: the global one, or one that trusts the test CA. */
  fetch: FetchLike;
}

function cli(sb: Sandbox, args: string[]): Record<string, any> {
  const p = Bun.spawnSync([BIN, ...args, "--json"], { env: sb.env, stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(p.stderr.toString());
  return JSON.parse(p.stdout.toString());
}

async function startStack(tls: { ca: string; cert: string; key: string; spki: string } | null): Promise<Stack> {
  const sb = sandbox({}, { fromDemo: true });
  const { serve, base } = await serveBinary(tls ? { ...sb.env, INDX_TLS_CERT: tls.cert, INDX_TLS_KEY: tls.key } : sb.env);
  const codes: ((url: URL) => void)[] = [];
  // The client's redirect target: a loopback callback, as desktop MCP clients use.
  const callback = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      for (const fn of codes.splice(0)) fn(url);
      return new Response("<!doctype html><title>done</title><p>You can close this window.</p>", { headers: { "content-type": "text/html" } });
    },
  });
  const browser = await Browser.launch(CHROMIUM ?? "", { trustSpki: tls ? [tls.spki] : [] });
  const ca = tls ? readFileSync(tls.ca, "utf8") : null;
  const fetchFn: FetchLike = ca ? (url, init) => fetch(url, { ...init, tls: { ca } }) : (url, init) => fetch(url, init);
  return { sb, serve, base, browser, callback, codes, fetch: fetchFn };
}

async function stopStack(s: Stack | undefined): Promise<void> {
  await s?.browser.close();
  s?.callback.stop(true);
  s?.serve.kill();
  await s?.serve.exited;
  s?.sb.cleanup();
}

/** Tabs until `target` has focus, recording the order; fails past `max` presses. */
async function tabTo(page: Page, target: string, order: string[], max = 8): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.press("Tab");
    const now = await page.focused();
    order.push(now);
    if (now === target) return;
  }
  throw new Error(`focus never reached ${target}: ${order.join(" → ")}`);
}

const nextCallback = (s: Stack) => new Promise<URL>((resolve) => s.codes.push(resolve));

/** The whole flow, as a desktop MCP client runs it, with the owner approving read only. */
async function sdkFlow(s: Stack): Promise<void> {
  const redirect = `http://127.0.0.1:${s.callback.port}/callback`;
  const provider = new MemoryProvider(redirect);
  const mcpUrl = new URL(`${s.base}/mcp`);

  // 1. The SDK meets a 401, follows resource_metadata, discovers the authorization server, registers, and asks to redirect.
  const first = new Client({ name: "sdk-oauth-e2e", version: "1.0.0" });
  await expect(first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: s.fetch }))).rejects.toThrow();
  const authUrl = provider.authorizationUrl;
  expect(authUrl).not.toBeNull();
  if (!authUrl) return;
  expect(authUrl.searchParams.get("code_challenge_method")).toBe("S256");
  expect(authUrl.searchParams.get("resource")).toBe(s.base);
  expect(provider.info?.client_id).toMatch(/^client_/);

  // 2. The owner, keyboard only: the access level (arrow keys pick read only), the folders it may
  // read (Reference/ only), the code, Approve. A plain form post: the page runs no script.
  const page = await s.browser.newPage();
  await page.viewport(1280, 900, false);
  await page.goto(authUrl.href);
  expect(await page.evaluate<string>("document.querySelector('h1').textContent")).toContain("SDK test client");
  expect(await page.evaluate<string>("document.body.textContent")).toContain(`127.0.0.1:${s.callback.port}`);
  const order: string[] = [];
  await tabTo(page, "access=write", order);
  await page.press("ArrowUp");
  expect(await page.focused()).toBe("access=read");
  await tabTo(page, "read_folders", order);
  await page.type("Reference/**");
  await tabTo(page, "owner_proof", order);
  await page.type(cli(s.sb, ["auth", "approve"]).code);
  await tabTo(page, "decision=approve", order);
  expect(await page.evaluate<string>("document.activeElement.textContent")).toBe("Approve");
  // Keyboard focus is visible (the :focus-visible outline).
  expect(await page.evaluate<string>("getComputedStyle(document.activeElement).outlineStyle")).toBe("solid");
  expect(await page.evaluate<number>("document.scripts.length")).toBe(0);
  // Tab order: the access level, the folders to read and to write, the code, Approve (then Deny).
  expect(order).toEqual(["access=write", "read_folders", "write_folders", "owner_proof", "decision=approve"]);
  const back = nextCallback(s);
  await page.press("Enter");
  const landed = await back;
  expect(landed.searchParams.get("state")).toBe("sdk-state-1");
  expect(landed.searchParams.get("iss")).toBe(s.base);
  const code = landed.searchParams.get("code") ?? "";
  expect(code).toMatch(/^indx_ac_/);

  // 3. The SDK exchanges the code (with its verifier and the resource) and calls a tool.
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: s.fetch });
  await transport.finishAuth(code);
  const firstTokens = provider.saved;
  expect(firstTokens?.scope).toBe("vault:read");
  expect(firstTokens?.refresh_token).toMatch(/^indx_rt_/);
  const client = new Client({ name: "sdk-oauth-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: s.fetch }));
  const found = await client.callTool({ name: "vault_search", arguments: { q: "rollback runbook" } });
  expect(found.isError).toBeFalsy();
  expect(JSON.stringify(found.structuredContent)).toContain("Runbook");
  // Outside the granted folders a note does not exist for this token.
  const hidden = await client.callTool({ name: "note_read", arguments: { path: "Projects/Apollo Launch.md" } });
  expect(hidden.isError).toBe(true);
  expect(JSON.stringify(hidden)).toContain("not_found");
  // Read only: a write tool is refused for this token.
  const write = await client.callTool({ name: "note_write", arguments: { path: "From OAuth.md", content: "x" } }).catch((e: Error) => e);
  expect(write instanceof Error || (write as { isError?: boolean }).isError === true).toBe(true);
  await client.close();

  // 4. Refresh through the SDK: a new pair, the old refresh token spent; tools/call with the new access token.
  expect(await auth(provider, { serverUrl: mcpUrl, fetchFn: s.fetch })).toBe("AUTHORIZED");
  expect(provider.saved?.access_token).not.toBe(firstTokens?.access_token);
  expect(provider.saved?.refresh_token).not.toBe(firstTokens?.refresh_token);
  const again = new Client({ name: "sdk-oauth-e2e", version: "1.0.0" });
  await again.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: s.fetch }));
  expect((await again.callTool({ name: "note_read", arguments: { path: "Reference/Runbook.md" } })).isError).toBeFalsy();
  // The refreshed token keeps the folders the owner chose.
  expect(JSON.stringify(await again.callTool({ name: "note_read", arguments: { path: "Projects/Apollo Launch.md" } }))).toContain("not_found");
  await again.close();

  // 5. The owner sees the grant with its client, scopes and folders.
  const listed = cli(s.sb, ["token", "list"]) as unknown as { kind: string; name: string; scopes: string[] }[];
  expect(listed.find((t) => t.kind === "oauth")).toMatchObject({ name: "SDK test client", scopes: ["vault:read"], grant: { read: ["Reference/**"] } });
}

/**
 * A named vault as its own connector (docs/decisions.md, "OAuth for named vaults"): added to the
 * config while serving, found by the SDK from /mcp/work's 401, approved in Chromium on a page
 * that names the vault with a code from `indx auth approve --vault work`; the token reads work
 * and is refused on the default vault's /mcp.
 */
async function namedVaultFlow(s: Stack): Promise<void> {
  const folder = join(s.sb.dir, "work-vault");
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "Plan.md"), "# Plan\n\nThe walrus plan for work.\n");
  appendFileSync(
    loadConfig({ env: s.sb.env }).path,
    `\n[vaults.work]\npath = ${JSON.stringify(folder)}\ndata_dir = ${JSON.stringify(join(s.sb.dir, "work-data"))}\n`,
  );
  const provider = new MemoryProvider(`http://127.0.0.1:${s.callback.port}/callback`);
  const mcpUrl = new URL(`${s.base}/mcp/work`);
  const first = new Client({ name: "sdk-oauth-e2e", version: "1.0.0" });
  await expect(first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: s.fetch }))).rejects.toThrow();
  const authUrl = provider.authorizationUrl;
  expect(authUrl?.searchParams.get("resource")).toBe(mcpUrl.href);
  if (!authUrl) return;
  const page = await s.browser.newPage();
  await page.viewport(1280, 900, false);
  await page.goto(authUrl.href);
  expect(await page.evaluate<string>("document.querySelector('h1').textContent")).toBe("Allow SDK test client to use your vault work?");
  await tabTo(page, "owner_proof", []);
  await page.type(cli(s.sb, ["auth", "approve", "--vault", "work"]).code);
  await tabTo(page, "decision=approve", []);
  const back = nextCallback(s);
  await page.press("Enter");
  const code = (await back).searchParams.get("code") ?? "";
  expect(code).toMatch(/^indx_ac_/);
  await new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: s.fetch }).finishAuth(code);
  const client = new Client({ name: "sdk-oauth-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: s.fetch }));
  expect(JSON.stringify(await client.callTool({ name: "note_read", arguments: { path: "Plan.md" } }))).toContain("walrus plan");
  await client.close();
  const onDefault = await s.fetch(`${s.base}/v1/vault/status`, { headers: { authorization: `Bearer ${provider.saved?.access_token}` } });
  expect(onDefault.status).toBe(401);
  const listed = cli(s.sb, ["token", "list", "--vault", "work"]) as unknown as { kind: string; resource?: string }[];
  expect(listed.find((t) => t.kind === "oauth")?.resource).toBe(mcpUrl.href);
}

/** The consent page at desktop and phone widths: no sideways scrolling, labelled controls, big buttons. */
async function consentLayout(s: Stack): Promise<Record<string, Buffer>> {
  const provider = new MemoryProvider(`http://127.0.0.1:${s.callback.port}/callback`);
  await auth(provider, { serverUrl: new URL(`${s.base}/mcp`), fetchFn: s.fetch });
  const url = provider.authorizationUrl?.href ?? "";
  const page = await s.browser.newPage();
  const shots: Record<string, Buffer> = {};
  for (const [name, width, height, mobile] of [
    ["desktop", 1280, 800, false],
    ["narrow", 375, 812, true],
  ] as const) {
    await page.viewport(width, height, mobile);
    await page.goto(url);
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(width);
    // Every control has a visible label, and the buttons are at least 44 px tall (touch targets).
    expect(await page.evaluate<number>("[...document.querySelectorAll('input:not([type=hidden]), textarea')].filter(i => !i.labels.length).length")).toBe(0);
    expect(
      await page.evaluate<number>("Math.min(...[...document.querySelectorAll('button')].map(b => b.getBoundingClientRect().height))"),
    ).toBeGreaterThanOrEqual(44);
    const png = await page.screenshot();
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    shots[name] = png;
  }
  return shots;
}

function saveShots(shots: Record<string, Buffer>): void {
  const dir = process.env.INDX_OAUTH_SCREENSHOTS;
  if (dir) {
    mkdirSync(dir, { recursive: true });
    for (const [name, png] of Object.entries(shots)) writeFileSync(join(dir, `oauth-consent-${name}.png`), png);
  }
}

describe.skipIf(!CHROMIUM)("the MCP SDK's OAuth client against indx serve over http, consent in Chromium", () => {
  let s: Stack | undefined;
  beforeAll(async () => {
    s = await startStack(null);
  }, 90_000);
  afterAll(() => stopStack(s));

  test("discovery, registration, PKCE, keyboard-only consent granting read only, exchange, tools/call, refresh, tools/call", async () => {
    if (s) await sdkFlow(s);
  }, 120_000);

  test("the consent page fits a 375 px screen without sideways scrolling; screenshots at both widths", async () => {
    if (s) saveShots(await consentLayout(s));
  }, 60_000);

  test("a named vault is its own connector: /mcp/work's metadata, a consent page naming it, a token for it alone", async () => {
    if (s) await namedVaultFlow(s);
  }, 120_000);
});

describe.skipIf(!CHROMIUM || !OPENSSL)("the same flow over https: TLS in the binary, a certificate from a test CA", () => {
  let s: Stack | undefined;
  let dir = "";
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "indx-oauth-tls-"));
    s = await startStack(makeCaSignedCert(dir));
  }, 90_000);
  afterAll(async () => {
    await stopStack(s);
    rmSync(dir, { recursive: true, force: true });
  });

  test("the server speaks https with the test certificate, which nothing trusts by default", async () => {
    if (!s) return;
    expect(s.base).toStartWith("https://127.0.0.1:");
    await expect(fetch(`${s.base}/health`)).rejects.toThrow();
    expect((await s.fetch(`${s.base}/health`)).status).toBe(200);
  });

  test("discovery, registration, PKCE, consent in Chromium, exchange, tools/call, refresh, tools/call — all over https", async () => {
    if (s) await sdkFlow(s);
  }, 120_000);
});
