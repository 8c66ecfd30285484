import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { BIN } from "../support/binary.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * Statelessness for real (docs/mcp.md, MCP 2026-07-28): two `indx serve` processes on one vault
 * behind nginx round-robin, no sticky routing. A 2026-07-28 client's whole session of calls lands
 * on both, and a subscriptions/listen stream on one process reports a write made through the
 * other. Needs the compiled binary and nginx (Debian's package); skipped, saying why, without it.
 */

const NGINX = ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"].find(existsSync) ?? Bun.which("nginx");
if (!NGINX) console.log("SKIP test/e2e/mcp-replicas.test.ts: no nginx binary found (apt-get install -y nginx)");

let sb: Sandbox;
let token = "";
const procs: Bun.Subprocess[] = [];
const clients: Client[] = [];
let upstreams: string[] = [];
let proxy = "";
let accessLog = "";

async function serve(): Promise<string> {
  const proc = Bun.spawn([BIN, "serve", "--port", "0"], { env: sb.env, stdout: "ignore", stderr: "pipe" });
  procs.push(proc);
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
  return url;
}

function freePort(): number {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = s.port ?? 0;
  s.stop(true);
  return port;
}

/** nginx in the foreground with a generated config: round-robin over the two servers, SSE unbuffered. */
async function startNginx(servers: string[]): Promise<string> {
  const dir = join(sb.dir, "nginx");
  mkdirSync(join(dir, "tmp"), { recursive: true });
  const port = freePort();
  accessLog = join(dir, "access.log");
  const conf = `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  log_format upstream '$upstream_addr $request_method $status';
  access_log ${accessLog} upstream;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  upstream indx { ${servers.map((u) => `server ${new URL(u).host};`).join(" ")} }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://indx;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_read_timeout 1h;
    }
  }
}
`;
  writeFileSync(join(dir, "nginx.conf"), conf);
  procs.push(Bun.spawn([NGINX ?? "nginx", "-p", dir, "-c", join(dir, "nginx.conf")], { stdout: "ignore", stderr: "pipe" }));
  const url = `http://127.0.0.1:${port}`;
  const end = Date.now() + 10_000;
  while (Date.now() < end) {
    const up = await fetch(`${url}/v1/health`).then(
      () => true,
      () => false,
    );
    if (up) return url;
    await Bun.sleep(50);
  }
  throw new Error(`nginx did not start: ${readFileSync(join(dir, "error.log"), "utf8")}`);
}

async function client(base: string, headers: Record<string, string> = {}): Promise<Client> {
  const c = new Client({ name: "replica-agent", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } } }));
  clients.push(c);
  return c;
}

type Json = Record<string, any>;
const call = async (c: Client, name: string, args: Json): Promise<Json> => {
  const r = (await c.callTool({ name, arguments: args })) as Json;
  if (r.isError) throw new Error(`${name} failed: ${r.content?.[0]?.text}`);
  return r.structuredContent as Json;
};

async function until(check: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await Bun.sleep(50);
  return check();
}

beforeAll(async () => {
  if (!NGINX) return;
  if (!existsSync(BIN)) throw new Error("dist/indx is missing: run `bun run build` first");
  sb = sandbox({}, { fromDemo: true });
  expect(Bun.spawnSync([BIN, "vault", "index"], { env: sb.env }).exitCode).toBe(0);
  // One after the other: the first start writes the admin token both then share.
  upstreams = [await serve(), await serve()];
  token = Bun.spawnSync([BIN, "config", "reveal-api-key"], { env: sb.env }).stdout.toString().trim();
  proxy = await startNginx(upstreams);
});

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const p of procs.reverse()) {
    p.kill();
    await p.exited;
  }
  sb?.cleanup();
});

describe.skipIf(!NGINX)("two indx serve processes behind nginx round-robin", () => {
  test("a 2026-07-28 client's whole session of calls, spread over both, with no sticky routing", async () => {
    const agent = await client(proxy);
    const discovered = await agent.discover();
    expect(discovered.supportedVersions).toContain("2026-07-28");
    const tools = (await agent.listTools()).tools.map((t) => t.name);
    expect(tools).toContain("note_patch");
    const hit = (await call(agent, "vault_search", { q: "rollback runbook" })).results[0];
    expect(hit.path).toBe("Reference/Runbook.md");
    // Write on one process, read and patch on the other, with the etag the first returned: the vault and index are shared.
    const written = await call(agent, "note_write", { path: "Inbox/Replicas.md", body: "# Replicas\n\n## Log\n\nfirst\n" });
    for (let i = 0; i < 4; i++) {
      const read = await call(agent, "note_read", { path: "Inbox/Replicas.md" });
      expect(read.etag).toBe(written.etag);
    }
    const patched = await call(agent, "note_patch", {
      path: "Inbox/Replicas.md",
      if_match: written.etag,
      ops: [{ op: "append_to_section", heading: "Log", markdown: "second" }],
    });
    expect((await call(agent, "note_read", { path: "Inbox/Replicas.md" })).etag).toBe(patched.etag);
    expect((await agent.readResource({ uri: "vault://Inbox/Replicas.md" })).contents[0]).toMatchObject({ text: expect.stringContaining("second") });
    expect((await call(agent, "vault_search", { q: "Replicas" })).results.map((r: Json) => r.path)).toContain("Inbox/Replicas.md");

    const served = readFileSync(accessLog, "utf8")
      .trim()
      .split("\n")
      .map((l) => l.split(" ")[0]);
    for (const u of upstreams) expect(served).toContain(new URL(u).host);
  });

  test("a listen stream on one process reports a write made through the other, and resumes on either", async () => {
    const [a, b] = upstreams as [string, string];
    const onA = await client(a);
    const onB = await client(b);
    const seen: Json[] = [];
    onA.setNotificationHandler("notifications/resources/updated", (n) => void seen.push(n.params));
    const sub = await onA.listen({ resourceSubscriptions: ["vault://Projects/**"] });
    await call(onB, "note_write", { path: "Projects/Through B.md", body: "# written through B\n" });
    expect(await until(() => seen.some((p) => p.uri === "vault://Projects/Through%20B.md"))).toBe(true);
    const eventId = seen.find((p) => p.uri === "vault://Projects/Through%20B.md")?._meta?.["indx/eventId"];
    expect(typeof eventId).toBe("string");
    await sub.close();

    // Away: a write through A. Back, on B, from the last event id: B reads the shared log and reports it.
    await call(onA, "note_write", { path: "Projects/While away.md", body: "# while away\n" });
    const back = await client(b, { "last-event-id": String(eventId) });
    const later: Json[] = [];
    back.setNotificationHandler("notifications/resources/updated", (n) => void later.push(n.params));
    const resumed = await back.listen({ resourceSubscriptions: ["vault://Projects/**"] });
    expect(await until(() => later.some((p) => p.uri === "vault://Projects/While%20away.md"))).toBe(true);
    await resumed.close();
  });
});
