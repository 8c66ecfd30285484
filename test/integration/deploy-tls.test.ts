import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { localServeUrl, probeHealth } from "../../src/service/health.ts";
import { CheckedClient } from "../support/ops.ts";
import { makeCert, OPENSSL, servedFingerprint } from "../support/tls-certs.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** HTTPS in the binary (docs/remote-access.md, Deployment): a test certificate made by openssl here. */
describe.skipIf(!OPENSSL)("TLS from certificate files", () => {
  let sb: Sandbox;
  let server: RunningServer;
  let admin: string;
  let live: { cert: string; key: string };
  let a: ReturnType<typeof makeCert>;
  let b: ReturnType<typeof makeCert>;
  const notices: string[] = [];

  /** fetch that trusts the test certificate (Bun reads NODE_EXTRA_CA_CERTS only at start). */
  const trusting = (ca: string) => (url: string | URL | Request, init?: RequestInit) => fetch(url, { ...init, tls: { ca: readFileSync(ca, "utf8") } });

  /** Replaces a live file the way certbot and cert-manager do: write beside it, rename over it. */
  const install = (from: string, to: string) => {
    copyFileSync(from, `${to}.new`);
    renameSync(`${to}.new`, to);
  };

  async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
    const end = Date.now() + 15_000;
    while (Date.now() < end) {
      // A connection that lands while the listening socket is swapped may be reset (docs/decisions.md, "Public deployment"): ask again.
      if (await Promise.resolve(check()).catch(() => false)) return;
      await Bun.sleep(50);
    }
    throw new Error(`timed out waiting for ${what}; notices: ${notices.join(" | ")}`);
  }

  beforeAll(async () => {
    sb = sandbox({ "Note.md": "# Note\n\nquasar over https\n" });
    const dir = join(sb.dir, "tls");
    mkdirSync(dir);
    a = makeCert(dir, "a");
    b = makeCert(dir, "b");
    const liveDir = join(sb.dir, "live");
    mkdirSync(liveDir);
    live = { cert: join(liveDir, "fullchain.pem"), key: join(liveDir, "privkey.pem") };
    install(a.cert, live.cert);
    install(a.key, live.key);
    server = await startServer(sb.context({ "server.tls_cert": live.cert, "server.tls_key": live.key }), {
      host: "127.0.0.1",
      port: 0,
      watch: false,
      notice: (l) => notices.push(l),
    });
    admin = loadConfig({ env: sb.env }).str("server.api_key") ?? "";
  });

  afterAll(async () => {
    await server?.stop();
    sb?.cleanup();
  });

  test("/health answers over https, and the certificate is verified against the test CA", async () => {
    expect(server.url).toStartWith("https://127.0.0.1:");
    const r = await trusting(a.cert)(`${server.url}/health`);
    expect(r.status).toBe(200);
    expect(((await r.json()) as { data: { status: string } }).data.status).toBe("ok");
    // A client that does not trust the certificate is refused by TLS, not served.
    expect(fetch(`${server.url}/health`)).rejects.toThrow();
    // Plain http on the https port gets nothing useful.
    expect(fetch(`${server.url.replace("https:", "http:")}/health`).then((res) => res.status)).rejects.toThrow();
  });

  test("indx health's probe finds the https server on loopback without trusting its certificate, and says when nothing answers", async () => {
    const up = await probeHealth(localServeUrl("0.0.0.0", server.port, true), 5000);
    expect(up).toMatchObject({ ok: true, status: 200, url: `https://127.0.0.1:${server.port}/health` });
    const wrongScheme = await probeHealth(localServeUrl("127.0.0.1", server.port, false), 5000);
    expect(wrongScheme.ok).toBe(false);
    expect(localServeUrl("::", 8787, false)).toBe("http://[::1]:8787/health");
  });

  test("the MCP SDK's own client connects over https and calls a tool", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${admin}` } },
      fetch: trusting(a.cert),
    });
    const client = new CheckedClient({ name: "https-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: "vault_search", arguments: { q: "quasar" } });
      expect(JSON.stringify(result)).toContain("Note.md");
    } finally {
      await client.close();
    }
  });

  test("a renewed certificate is served without a restart; a mismatched pair keeps the old one serving", async () => {
    expect(await servedFingerprint(server.port)).toBe(a.fingerprint);
    // Half a renewal: the new certificate lands before its key. The pair does not match: the old one stays.
    install(b.cert, live.cert);
    await until(() => notices.some((n) => n.includes("cannot be used")), "the mismatch to be reported");
    expect(notices.find((n) => n.includes("cannot be used"))).toContain("is not the key of server.tls_cert");
    expect(await servedFingerprint(server.port)).toBe(a.fingerprint);
    expect((await trusting(a.cert)(`${server.url}/health`)).status).toBe(200);
    // The key follows: the new pair goes into service on the same port.
    install(b.key, live.key);
    await until(async () => (await servedFingerprint(server.port)) === b.fingerprint, "the new certificate to be served");
    expect(server.tls()?.fingerprint).toBe(b.fingerprint);
    expect((await trusting(b.cert)(`${server.url}/health`)).status).toBe(200);
    expect(notices.some((n) => n.startsWith("Serving the renewed TLS certificate"))).toBe(true);
  });
});

describe.skipIf(!OPENSSL)("a TLS set-up that cannot work stops the start with its reason", () => {
  test("one file of the pair, a missing file, a key that is not the certificate's", async () => {
    const sb = sandbox({ "Note.md": "# Note\n" });
    try {
      const a = makeCert(sb.dir, "a");
      const b = makeCert(sb.dir, "b");
      const start = (flags: Record<string, unknown>) =>
        startServer(sb.context(flags), { host: "127.0.0.1", port: 0, watch: false, notice: () => {} }).then(
          async (s) => {
            await s.stop();
            return "started";
          },
          (err: Error) => err.message,
        );
      expect(await start({ "server.tls_cert": a.cert })).toContain("Set both server.tls_cert and server.tls_key");
      expect(await start({ "server.tls_cert": join(sb.dir, "nope.crt"), "server.tls_key": a.key })).toBe("server.tls_cert (nope.crt) does not exist.");
      const mismatch = await start({ "server.tls_cert": a.cert, "server.tls_key": b.key });
      expect(mismatch).toContain("is not the key of server.tls_cert");
      expect(mismatch).not.toContain(sb.dir);
      expect(await start({ "server.tls_cert": a.key, "server.tls_key": a.key })).toContain("is not a PEM certificate");
    } finally {
      sb.cleanup();
    }
  });
});

describe.skipIf(!OPENSSL)("indx config set stores the TLS files as absolute paths", () => {
  test("a relative path is resolved where the command runs; a missing file is refused", () => {
    const sb = sandbox({ "Note.md": "# Note\n" });
    try {
      const c = makeCert(sb.dir, "c");
      const main = join(import.meta.dir, "..", "..", "src", "main.ts");
      const set = (value: string) =>
        Bun.spawnSync(["bun", main, "config", "set", "server.tls_cert", value], { cwd: sb.dir, env: sb.env, stdout: "pipe", stderr: "pipe" });
      expect(set("c.crt").exitCode).toBe(0);
      expect(loadConfig({ env: sb.env }).str("server.tls_cert")).toBe(c.cert);
      const missing = set("nope.crt");
      expect(missing.exitCode).not.toBe(0);
      expect(missing.stderr.toString()).toContain("does not exist or is not a file");
    } finally {
      sb.cleanup();
    }
  });
});
