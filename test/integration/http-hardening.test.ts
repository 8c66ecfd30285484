import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config/load.ts";
import { IndxError } from "../../src/core/errors.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { rawRequest } from "../support/raw-http.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

let sb: Sandbox;
let server: RunningServer;
let admin: string;

beforeAll(async () => {
  sb = sandbox({ "Secret Plans.md": "# Secret plans\n\nquasar\n", "Other.md": "# Other\n" });
  server = await startServer(sb.context(), { host: "127.0.0.1", port: 0, watch: false, notice: () => {} });
  admin = loadConfig({ env: sb.env }).str("server.api_key")!;
});

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

/** A raw request line and headers (Connection: close added), then an optional body. */
function request(head: string[], body = ""): string {
  return `${[...head, "Connection: close"].join("\r\n")}\r\n\r\n${body}`;
}

function expectEnvelope(body: string, code: string) {
  const parsed = JSON.parse(body) as { ok: boolean; error: { code: string; message: string } };
  expect(parsed.ok).toBe(false);
  expect(parsed.error.code).toBe(code);
  expect(typeof parsed.error.message).toBe("string");
}

describe("a busy port", () => {
  test("a second server on the same port is refused, naming the port and how to pick another", async () => {
    const other = sandbox({ "A.md": "# A\n" });
    const ctx = other.context();
    try {
      const second = await startServer(ctx, { host: "127.0.0.1", port: server.port, watch: false, notice: () => {} }).then(
        (s) => s,
        (err: unknown) => err,
      );
      if (!(second instanceof IndxError)) {
        if (second && typeof second === "object" && "stop" in second) await (second as RunningServer).stop();
        throw new Error("the second server started on a busy port");
      }
      expect(second.message).toContain(String(server.port));
      expect(second.message).toContain("--port");
      expect(second.message).toContain("INDX_PORT");
      expect(second.details).toMatchObject({ port: server.port, reason: "port_in_use" });
    } finally {
      ctx.close();
      other.cleanup();
    }
    // The first server still answers.
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });
});

describe("malformed requests get a typed 4xx", () => {
  test("a malformed Host header is a 400 envelope", async () => {
    for (const host of ["a b c", "exa mple:80", "[::1", "x\u007fy"]) {
      const r = await rawRequest(server.port, request(["GET /v1/vault/status HTTP/1.1", `Host: ${host}`, `Authorization: Bearer ${admin}`]));
      expect(r.status).toBe(400);
      expect(r.headers.get("content-type")).toContain("application/json");
      expectEnvelope(r.body, "validation_failed");
    }
  });

  test("two Host headers are a 400", async () => {
    const r = await rawRequest(
      server.port,
      request(["GET /v1/vault/status HTTP/1.1", "Host: 127.0.0.1", "Host: evil.example", `Authorization: Bearer ${admin}`]),
    );
    expect(r.status).toBe(400);
    expectEnvelope(r.body, "validation_failed");
  });

  test("a JSON body nested 50,000 levels is a 400 validation_failed", async () => {
    const deep = `{"q":${"[".repeat(50_000)}${"]".repeat(50_000)}}`;
    const res = await fetch(`${server.url}/v1/search`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: deep,
    });
    expect(res.status).toBe(400);
    expectEnvelope(await res.text(), "validation_failed");
    // Brackets inside strings are text, not nesting.
    const text = await fetch(`${server.url}/v1/search`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ q: `quasar ${"[{".repeat(200)}` }),
    });
    expect(text.status).toBe(200);
  });

  test("a body over the size limit is a 413, declared or streamed", async () => {
    const big = `{"q":"${"x".repeat(9 * 1024 * 1024)}"}`;
    const declared = await fetch(`${server.url}/v1/search`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: big,
    });
    expect(declared.status).toBe(413);
    expectEnvelope(await declared.text(), "payload_too_large");
    const chunk = "x".repeat(1024 * 1024);
    const streamed = await rawRequest(
      server.port,
      request(
        ["POST /v1/search HTTP/1.1", "Host: 127.0.0.1", `Authorization: Bearer ${admin}`, "Content-Type: application/json", "Transfer-Encoding: chunked"],
        `${`${chunk.length.toString(16)}\r\n${chunk}\r\n`.repeat(9)}0\r\n\r\n`,
      ),
    );
    expect(streamed.status).toBe(413);
    expectEnvelope(streamed.body, "payload_too_large");
  });

  test("a body shorter than its Content-Length is answered promptly, and other requests are not held", async () => {
    const stalled = rawRequest(
      server.port,
      [
        "POST /v1/search HTTP/1.1",
        "Host: 127.0.0.1",
        `Authorization: Bearer ${admin}`,
        "Content-Type: application/json",
        "Content-Length: 100",
        "",
        '{"q":',
      ].join("\r\n"),
    );
    await Bun.sleep(200);
    const t = performance.now();
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const search = await fetch(`${server.url}/v1/search?q=quasar`, { headers: { authorization: `Bearer ${admin}` } });
    expect(search.status).toBe(200);
    expect(performance.now() - t).toBeLessThan(2_000);
    const r = await stalled;
    expect(r.status).toBe(400);
    expectEnvelope(r.body, "validation_failed");
    expect(r.ms).toBeLessThan(9_000);
  }, 15_000);
});

describe("input bounds", () => {
  test("a search with 10,000 tag filters is a quick 400", async () => {
    const started = performance.now();
    const res = await fetch(`${server.url}/v1/search`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ q: "quasar", tag: Array.from({ length: 10_000 }, (_, i) => `tag${i}`) }),
    });
    expect(res.status).toBe(400);
    expectEnvelope(await res.text(), "validation_failed");
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe("the access log", () => {
  test("records route templates, never a note path or a query", async () => {
    const captured: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    const logSetting = process.env.INDX_LOG;
    process.env.INDX_LOG = "on";
    process.stderr.write = ((chunk: string | Uint8Array) => {
      captured.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    const logged = sandbox({ "Secret Plans.md": "# Secret plans\n" });
    process.env.INDX_ACCESS_LOG = "1";
    const s = await startServer(logged.context(), { host: "127.0.0.1", port: 0, watch: false, notice: () => {} });
    try {
      const key = loadConfig({ env: logged.env }).str("server.api_key")!;
      const auth = { authorization: `Bearer ${key}` };
      await fetch(`${s.url}/v1/notes/Secret%20Plans.md`, { headers: auth });
      await fetch(`${s.url}/v1/search?q=classified`, { headers: auth });
      await fetch(`${s.url}/Secret/Plans.md?q=classified`);
      await fetch(`${s.url}/docs/Secret-Plans.js`);
      await fetch(`${s.url}/v1/Secret/Plans`, { headers: auth });
      await fetch(`${s.url}/metrics`, { headers: auth });
      const metrics = await (await fetch(`${s.url}/metrics`, { headers: auth })).text();
      expect(metrics).not.toContain("Secret");
    } finally {
      process.stderr.write = write;
      process.env.INDX_LOG = logSetting;
      delete process.env.INDX_ACCESS_LOG;
      await s.stop();
      logged.cleanup();
    }
    const lines = captured
      .join("")
      .split("\n")
      .filter((l) => l.includes('"event":"http"'));
    expect(lines.length).toBeGreaterThanOrEqual(7);
    for (const line of lines) {
      expect(line).not.toContain("Secret");
      expect(line).not.toContain("classified");
    }
    expect(lines.some((l) => l.includes('"route":"GET /v1/notes/{path}"'))).toBe(true);
  });
});
