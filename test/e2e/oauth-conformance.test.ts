import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { BIN, serveBinary } from "../support/binary.ts";
import { Browser, findChromium } from "../support/chromium.ts";
import { register } from "../support/oauth.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * The official conformance suite's authorization-server scenarios (npm
 * @modelcontextprotocol/conformance, `conformance authorization`) against the compiled binary:
 * metadata discovery, and the authorization code grant with PKCE and the resource indicator, the
 * owner approving in headless Chromium with the admin token. The suite's other auth scenarios test
 * MCP clients against its own mock servers; they do not apply to a server.
 */
const SUITE = resolve(import.meta.dir, "..", "..", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const CHROMIUM = findChromium();
if (!CHROMIUM) console.log("SKIP oauth-conformance: no chromium binary (apt-get install -y chromium, or set INDX_CHROMIUM)");

let sb: Sandbox;
let serve: Bun.Subprocess<"ignore", "pipe", "pipe">;
let base = "";

beforeAll(async () => {
  if (!CHROMIUM) return;
  sb = sandbox({ "Note.md": "# Note\n" });
  ({ serve, base } = await serveBinary(sb.env));
}, 60_000);

afterAll(async () => {
  serve?.kill();
  await serve?.exited;
  sb?.cleanup();
});

/** A free loopback port for the suite's callback server. */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
  const address = srv.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

function checksIn(dir: string): Check[] {
  const out: Check[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name === "checks.json") out.push(...(JSON.parse(readFileSync(join(d, e.name), "utf8")) as Check[]));
    }
  };
  walk(dir);
  return out;
}

describe.skipIf(!CHROMIUM)("the conformance suite's authorization-server scenarios", () => {
  test("authorization-server-metadata-endpoint and authorization-code-grant pass", async () => {
    const port = await freePort();
    const clientId = await register(base, [`http://127.0.0.1:${port}/callback`], "Conformance suite");
    const admin = Bun.spawnSync([BIN, "config", "reveal-api-key"], { env: sb.env }).stdout.toString().trim();
    const output = mkdtempSync(join(tmpdir(), "indx-oauth-conformance-"));
    const suite = Bun.spawn(["bun", SUITE, "authorization", "--url", base, "--client-id", clientId, "--resource", base, "--port", String(port), "-o", output], {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    // The suite prints the authorization URL and waits for a browser to come back to its callback.
    const reader = suite.stdout.getReader();
    let seen = "";
    let url = "";
    const deadline = Date.now() + 60_000;
    while (!url && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
      url = /^(https?:\/\/\S+\/oauth\/authorize\?\S+)$/m.exec(seen)?.[1] ?? "";
    }
    expect(url).toContain(`resource=${encodeURIComponent(base)}`);
    const browser = await Browser.launch(CHROMIUM ?? "");
    try {
      const page = await browser.newPage();
      await page.goto(url);
      await page.evaluate<void>(`document.getElementById('owner_proof').value = ${JSON.stringify(admin)}`);
      const landed = page.nextLoad();
      await page.evaluate<void>("document.querySelector('button.approve').click()");
      await landed;
    } finally {
      await browser.close();
    }
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    await suite.exited;
    const checks = checksIn(output);
    console.log(checks.map((c) => `${c.status.padEnd(8)} ${c.id}${c.errorMessage ? `: ${c.errorMessage}` : ""}`).join("\n"));
    expect(checks.length).toBeGreaterThanOrEqual(3);
    for (const c of checks) expect(`${c.id}: ${c.status}`).toBe(`${c.id}: SUCCESS`);
  }, 120_000);
});
