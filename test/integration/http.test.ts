import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TokenStore } from "../../src/auth/tokens.ts";
import { loadConfig } from "../../src/config/load.ts";
import { ROUTES, templateOf } from "../../src/http/routes.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { assertRestOutput } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

let sb: Sandbox;
let server: RunningServer;
let admin: string;
let reader: string;

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

async function get(path: string, token: string | null = admin, init: RequestInit = {}) {
  const res = await fetch(server.url + path, { ...init, headers: { ...(token ? auth(token) : {}), ...(init.headers ?? {}) } });
  const text = await res.text();
  // No response may ever reveal where the vault lives.
  expect(text).not.toContain(sb.dir);
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  assertRestOutput(init.method ?? "GET", path, body);
  return { status: res.status, headers: res.headers, body };
}

beforeAll(async () => {
  sb = sandbox({}, { fromDemo: true });
  // Hostile files for the bad-input suite.
  writeFileSync(join(sb.dir, "secret.md"), "# outside the vault\n");
  symlinkSync(join(sb.dir, "secret.md"), join(sb.vault, "escape.md"));
  sb.write("binary.md", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3]));
  sb.write("Huge.md", `# Huge\n\n${"lorem ipsum dolor sit amet ".repeat(2_000_000)}`); // ~54 MB
  const ctx = sb.context();
  server = await startServer(ctx, { host: "127.0.0.1", port: 0, notice: () => {} });
  admin = loadConfig({ env: sb.env }).str("server.api_key")!;
  reader = new TokenStore(sb.dataDir).create("reader", ["vault:read"]).token;
});

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

describe("auth and guards", () => {
  test("/health is open", async () => {
    const r = await get("/health", null);
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(true);
  });

  test("every /v1 route answers 401 without a token", async () => {
    for (const route of ROUTES) {
      const path = templateOf(route).replace("{path}", "Welcome.md").replace("{index}", "0").replace("{tag}", "meta");
      const r = await fetch(server.url + path, { method: route.method });
      expect(r.status).toBe(401);
      if (route.method !== "HEAD") expect(((await r.json()) as any).error.code).toBe("unauthorized");
    }
    expect((await get("/v1/nope", null)).status).toBe(401);
    expect((await get("/v1/search?q=x", "indx_wrong")).status).toBe(401);
  });

  test("a foreign Host header is refused", async () => {
    const r = await get("/v1/vault/status", admin, { headers: { host: "evil.example:8787" } });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("forbidden");
  });

  test("a cross-site Origin is refused; CORS is off by default", async () => {
    const r = await get("/v1/vault/status", admin, { headers: { origin: "https://evil.example" } });
    expect(r.status).toBe(403);
  });

  test("a read-only token cannot call an admin operation", async () => {
    expect((await get("/v1/search?q=launch", reader)).status).toBe(200);
    const r = await get("/v1/vault/reindex", reader, { method: "POST" });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("forbidden");
  });
});

describe("read operations over REST", () => {
  test("search finds the launch note with a snippet and its best heading", async () => {
    const r = await get("/v1/search?q=rollback%20runbook&limit=5");
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(true);
    const paths = r.body.data.results.map((x: any) => x.path);
    expect(paths).toContain("Reference/Runbook.md");
    expect(r.body.data.mode_used).toBe("lexical");
    const hit = r.body.data.results.find((x: any) => x.path === "Reference/Runbook.md");
    expect(hit.heading).toBeTruthy();
    expect(typeof hit.score).toBe("number");
  });

  test("POST /v1/search with filters", async () => {
    const r = await get("/v1/search", admin, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ q: "search", tag: ["project"] }),
    });
    expect(r.status).toBe(200);
    for (const hit of r.body.data.results) expect(hit.path.startsWith("Projects/")).toBe(true);
  });

  test("note read returns the etag header and the parsed parts", async () => {
    const r = await get("/v1/notes/Projects/Apollo%20Launch.md?include=frontmatter,outline,backlinks");
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe(`"${r.body.data.etag}"`);
    expect(r.body.data.frontmatter.status).toBe("active");
    expect(r.body.data.outline.map((h: any) => h.text)).toContain("Risks");
    expect(r.body.data.backlinks.map((b: any) => b.source)).toContain("People/Ada Lovelace.md");
    const again = await fetch(`${server.url}/v1/notes/Projects/Apollo%20Launch.md`, { headers: { ...auth(admin), "if-none-match": r.headers.get("etag")! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const stale = await fetch(`${server.url}/v1/notes/Projects/Apollo%20Launch.md`, { headers: { ...auth(admin), "if-none-match": '"0000000000000000"' } });
    expect(stale.status).toBe(200);
  });

  test("HEAD tells whether a note exists", async () => {
    expect((await fetch(`${server.url}/v1/notes/Welcome.md`, { method: "HEAD", headers: auth(admin) })).status).toBe(200);
    expect((await fetch(`${server.url}/v1/notes/Nope.md`, { method: "HEAD", headers: auth(admin) })).status).toBe(404);
  });

  test("links, tags, chunks, attachments, status, config", async () => {
    const back = await get("/v1/links/Projects/Apollo%20Launch.md/backlinks");
    expect(back.body.data.count).toBeGreaterThan(2);
    const fwd = await get("/v1/links/People/Grace%20Hopper.md/forward");
    expect(fwd.body.data.links.find((l: any) => l.linkpath === "Compiler Notes").resolved).toBe(false);
    const unresolved = await get("/v1/links/unresolved");
    expect(unresolved.body.data.unresolved.map((u: any) => u.linkpath)).toContain("Compiler Notes");
    const orphans = await get("/v1/links/orphans");
    expect(orphans.body.data.orphans.map((o: any) => o.path)).toContain("Inbox.md");
    const tags = await get("/v1/tags");
    expect(tags.body.data.tags.map((t: any) => t.tag)).toContain("project/active");
    const tagged = await get("/v1/tags/project/notes");
    expect(tagged.body.data.notes.map((n: any) => n.path).sort()).toEqual(["Projects/Apollo Launch.md", "Projects/Beacon Research.md"]);
    const chunk = await get("/v1/chunks/Projects/Apollo%20Launch.md/1");
    expect(chunk.status).toBe(200);
    expect(chunk.body.data.id).toBe("Projects/Apollo Launch.md#1");
    const meta = await get("/v1/attachments/Attachments/diagram.png");
    expect(meta.body.data.mime).toBe("image/png");
    expect(meta.body.data.data_base64).toBeUndefined();
    const bytes = await fetch(`${server.url}/v1/attachments/Attachments/diagram.png?download=true`, { headers: auth(admin) });
    expect(bytes.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await bytes.arrayBuffer()).slice(1, 4)).toEqual(new Uint8Array([0x50, 0x4e, 0x47]));
    const status = await get("/v1/vault/status");
    expect(status.body.data.index.counts.notes).toBeGreaterThan(10);
    expect(status.body.data.warnings.map((w: any) => w.code)).toContain("frontmatter_invalid");
    const config = await get("/v1/vault/config");
    expect(config.body.data.config["server.api_key"].value).toBe("set");
    expect(config.body.data.config.vault.value).toBe("set");
  });

  test("related excludes the input note", async () => {
    const r = await get("/v1/related", admin, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: "Projects/Apollo Launch.md" }),
    });
    expect(r.status).toBe(200);
    expect(r.body.data.results.map((x: any) => x.path)).not.toContain("Projects/Apollo Launch.md");
  });

  test("OpenAPI lists every route (AI routes only once a model is configured) and the docs page works offline", async () => {
    const spec = await get("/openapi.json", null);
    expect(spec.body.openapi).toBe("3.1.0");
    for (const route of ROUTES) expect(spec.body.paths[templateOf(route)]?.[route.method.toLowerCase()] !== undefined).toBe(!route.op.ai);
    const docs = await fetch(`${server.url}/docs`);
    const html = await docs.text();
    expect(html).toContain("/docs/swagger-ui-bundle.js");
    expect(html).not.toContain("http");
    expect((await fetch(`${server.url}/docs/swagger-ui-bundle.js`)).status).toBe(200);
  });

  test("metrics need a token and count requests", async () => {
    expect((await get("/metrics", null)).status).toBe(401);
    const m = await get("/metrics");
    expect(m.body).toContain("indx_http_requests_total");
  });
});

describe("bad input never crashes or leaks", () => {
  const cases: [string, string, number[]][] = [
    ["dot-dot", "/v1/notes/../secret.md", [400, 404]],
    ["encoded dot-dot", "/v1/notes/%2e%2e%2fsecret.md", [400]],
    ["double-encoded dot-dot", "/v1/notes/%252e%252e%252fsecret.md", [400]],
    ["encoded absolute", "/v1/notes/%2Fetc%2Fpasswd", [400]],
    ["NUL byte", "/v1/notes/Welcome%00.md", [400]],
    ["bad escape", "/v1/notes/%E0%A4%A.md", [400]],
    ["symlink escape", "/v1/notes/escape.md", [400]],
    ["hidden folder", "/v1/notes/.obsidian/app.json", [400]],
    ["binary .md", "/v1/notes/binary.md", [422]],
    ["huge note", "/v1/notes/Huge.md", [413]],
    ["missing note", "/v1/notes/Nope.md", [404]],
    ["attachment as note", "/v1/notes/Attachments/diagram.png", [400]],
    ["bad chunk id", "/v1/chunks/Welcome.md/999", [404]],
    ["bad cursor", "/v1/search?q=launch&cursor=garbage", [400]],
    ["bad limit", "/v1/search?q=launch&limit=-4", [400]],
    ["unknown param", "/v1/search?q=launch&bogus=1", [400]],
    ["bad mode", "/v1/search?q=launch&mode=magic", [400]],
    ["semantic without embeddings", "/v1/search?q=launch&mode=semantic", [503]],
    ["bad glob", "/v1/search?q=launch&path_glob=%5B", [400]],
  ];
  for (const [name, path, statuses] of cases) {
    test(name, async () => {
      const r = await get(path);
      expect(statuses).toContain(r.status);
      expect(r.body.ok).toBe(false);
      expect(typeof r.body.error.code).toBe("string");
    });
  }

  test("FTS5 syntax junk in queries is never a syntax error", async () => {
    const junk = [
      '"',
      '"unbalanced',
      "NEAR(a b",
      "a AND",
      "OR",
      "title:x",
      "^start",
      "(",
      ")",
      "*",
      "-",
      "a:b:c",
      "{x y}",
      "DEC-0045",
      "v3.6.7",
      "数据库",
      "C++",
      "\\",
      "'; DROP TABLE notes; --",
      "🚀",
    ];
    for (const q of junk) {
      const r = await get(`/v1/search?q=${encodeURIComponent(q)}`);
      expect(r.status).toBe(200);
      expect(Array.isArray(r.body.data.results)).toBe(true);
    }
    const id = await get(`/v1/search?q=${encodeURIComponent("DEC-0045")}`);
    expect(id.body.data.results[0].path).toBe("Projects/Apollo Launch.md");
    const cjk = await get(`/v1/search?q=${encodeURIComponent("数据库")}`);
    expect(cjk.body.data.results.map((x: any) => x.path)).toContain("Daily/2026-01-06.md");
  });

  test("malformed JSON bodies and wrong content types are typed errors", async () => {
    const bad = await get("/v1/search", admin, { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" });
    expect(bad.status).toBe(400);
    const arr = await get("/v1/search", admin, { method: "POST", headers: { "content-type": "application/json" }, body: "[1]" });
    expect(arr.status).toBe(400);
    const text = await get("/v1/search", admin, { method: "POST", headers: { "content-type": "text/plain" }, body: "q=x" });
    expect(text.status).toBe(415);
  });

  test("the huge and binary notes are listed but flagged, and readable with allow_large", async () => {
    const status = await get("/v1/vault/status");
    const codes = status.body.data.warnings.map((w: any) => `${w.code}:${w.path}`);
    expect(codes).toContain("note_too_large:Huge.md");
    expect(codes).toContain("binary_content:binary.md");
    const big = await fetch(`${server.url}/v1/notes/Huge.md?allow_large=true&include=outline`, { headers: auth(admin) });
    expect(big.status).toBe(200);
  });
});

describe("the watcher keeps the index current", () => {
  test("a new file on disk becomes searchable and a deleted one disappears", async () => {
    sb.write("Fresh/Zeppelin.md", "# Zeppelin\n\nA note about quasarbeam zeppelins.\n");
    await server.watcher!.flush();
    await Bun.sleep(50);
    await server.watcher!.flush();
    let r = await get("/v1/search?q=quasarbeam");
    expect(r.body.data.results.map((x: any) => x.path)).toEqual(["Fresh/Zeppelin.md"]);
    const { rmSync } = await import("node:fs");
    rmSync(join(sb.vault, "Fresh"), { recursive: true });
    await Bun.sleep(50);
    await server.watcher!.flush();
    r = await get("/v1/search?q=quasarbeam");
    expect(r.body.data.results).toEqual([]);
  });
});
