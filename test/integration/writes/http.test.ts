import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TokenStore } from "../../../src/auth/tokens.ts";
import { loadConfig } from "../../../src/config/load.ts";
import { etagOf } from "../../../src/core/hash.ts";
import { type RunningServer, startServer } from "../../../src/http/serve.ts";
import { noteWrite } from "../../../src/notes/write-ops.ts";
import { assertRestOutput, invoke } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

let sb: Sandbox;
let server: RunningServer;
let admin: string;
let reader: string;

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, token = admin) {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  expect(text).not.toContain(sb.dir);
  const parsed = text ? JSON.parse(text) : null;
  assertRestOutput(method, path, parsed);
  return { status: res.status, headers: res.headers, body: parsed };
}

const etagOfFile = (rel: string) => etagOf(readFileSync(join(sb.vault, rel)));

beforeAll(async () => {
  sb = sandbox({}, { fromDemo: true });
  server = await startServer(sb.context(), { host: "127.0.0.1", port: 0, notice: () => {} });
  admin = loadConfig({ env: sb.env }).str("server.api_key")!;
  reader = new TokenStore(sb.dataDir).create("reader", ["vault:read"]).token;
});

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

describe("REST writes", () => {
  test("PUT creates (201 + ETag), If-Match guards a replace (412 with the current etag)", async () => {
    const created = await call("PUT", "/v1/notes/Inbox/New%20idea.md", { body: "# New idea\n" });
    expect(created.status).toBe(201);
    expect(created.headers.get("etag")).toBe(`"${etagOfFile("Inbox/New idea.md")}"`);
    const stale = await call("PUT", "/v1/notes/Inbox/New%20idea.md", { body: "# v2\n" }, { "if-match": '"0123456789abcdef"' });
    expect(stale.status).toBe(412);
    expect(stale.body.error).toMatchObject({ code: "etag_mismatch", details: { actual: etagOfFile("Inbox/New idea.md") } });
    const ok = await call("PUT", "/v1/notes/Inbox/New%20idea.md", { body: "# v2\n" }, { "if-match": created.headers.get("etag")! });
    expect(ok.status).toBe(200);
    expect(ok.body.data.created).toBe(false);
  });

  test("a vault:read token cannot write (403) and the note is untouched", async () => {
    const r = await call("PUT", "/v1/notes/Reader.md", { body: "x" }, {}, reader);
    expect(r.status).toBe(403);
    expect(existsSync(join(sb.vault, "Reader.md"))).toBe(false);
  });

  test("Idempotency-Key replays the first answer; another body with the key is 409", async () => {
    const first = await call("PUT", "/v1/notes/Idem.md", { body: "one\n" }, { "idempotency-key": "abc-1" });
    const again = await call("PUT", "/v1/notes/Idem.md", { body: "one\n" }, { "idempotency-key": "abc-1" });
    expect(again.headers.get("x-indx-idempotent-replay")).toBe("true");
    expect(again.body.data).toEqual(first.body.data);
    const other = await call("PUT", "/v1/notes/Idem.md", { body: "two\n" }, { "idempotency-key": "abc-1" });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe("idempotency_key_reused");
  });

  test("bad write input: traversal, wrong kind, bad JSON, huge body — typed errors, nothing written", async () => {
    const cases: [string, string, unknown, number][] = [
      ["PUT", "/v1/notes/..%2F..%2Fevil.md", { body: "x" }, 400],
      ["PUT", "/v1/notes/evil.exe", { body: "x" }, 400],
      ["PUT", "/v1/notes/Ok.md", { body: "x", surprise: true }, 400],
      ["PATCH", "/v1/notes/Welcome.md", { ops: [] }, 400],
      ["PATCH", "/v1/notes/Welcome.md", { ops: [{ op: "explode" }] }, 400],
      ["DELETE", "/v1/notes/Nope.md", undefined, 404],
    ];
    for (const [method, path, body, status] of cases) {
      const r = await call(method, path, body);
      expect({ path, status: r.status }).toEqual({ path, status });
      expect(r.body?.ok ?? false).toBe(false);
    }
    const raw = await fetch(`${server.url}/v1/notes/Raw.md`, {
      method: "PUT",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: "{not json",
    });
    expect(raw.status).toBe(400);
    // fetch normalises %2e%2e like "..": the request leaves /v1/notes/ and finds no route.
    const dotted = await call("PUT", "/v1/notes/%2e%2e/%2e%2e/evil.md", { body: "x" });
    expect([400, 404]).toContain(dotted.status);
    const huge = await call("PUT", "/v1/notes/Huge.md", { body: "x".repeat(9 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(existsSync(join(sb.vault, "Huge.md"))).toBe(false);
    expect(existsSync(join(sb.dir, "evil.md"))).toBe(false);
  });

  test("20 concurrent PATCHes with the same etag: exactly 1 succeeds, 19 get 412, the note is intact", async () => {
    writeFileSync(join(sb.vault, "Race.md"), "# Race\n\n## Log\n\nstart\n");
    const etag = etagOfFile("Race.md");
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call("PATCH", "/v1/notes/Race.md", { ops: [{ op: "append_to_section", heading: "Log", markdown: `entry ${i}` }] }, { "if-match": `"${etag}"` }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array(19).fill(412)]);
    const winner = results.find((r) => r.status === 200)!;
    const text = readFileSync(join(sb.vault, "Race.md"), "utf8");
    expect(text).toMatch(/^# Race\n\n## Log\n\nstart\nentry \d+\n$/);
    expect(winner.body.data.etag).toBe(etagOf(Buffer.from(text)));
  });

  test("DELETE sends the note to .trash/", async () => {
    writeFileSync(join(sb.vault, "Doomed.md"), "# Doomed\n");
    const r = await call("DELETE", "/v1/notes/Doomed.md", undefined, { "if-match": etagOfFile("Doomed.md") });
    expect(r.status).toBe(200);
    expect(r.body.data.trashed).toBe(true);
    expect(existsSync(join(sb.vault, ".trash/Doomed.md"))).toBe(true);
  });
});

describe("GET /v1/events", () => {
  test("streams writes through indx and changes made on disk, filtered by kind", async () => {
    const controller = new AbortController();
    const res = await fetch(`${server.url}/v1/events?kinds=note`, { headers: { authorization: `Bearer ${reader}` }, signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader_ = res.body!.getReader();
    const seen: any[] = [];
    const pump = (async () => {
      let buf = "";
      const decoder = new TextDecoder();
      try {
        while (true) {
          const { value, done } = await reader_.read();
          if (done) break;
          buf += decoder.decode(value);
          let i: number;
          while ((i = buf.indexOf("\n\n")) >= 0) {
            const frame = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const data = frame.split("\n").find((l) => l.startsWith("data: "));
            if (data) seen.push(JSON.parse(data.slice(6)));
          }
        }
      } catch {}
    })();
    await call("PUT", "/v1/notes/Streamed.md", { body: "# Streamed\n" });
    writeFileSync(join(sb.vault, "Welcome.md"), `${readFileSync(join(sb.vault, "Welcome.md"), "utf8")}\nEdited in an editor.\n`);
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && !seen.some((e) => e.path === "Welcome.md")) await Bun.sleep(25);
    controller.abort();
    await pump;
    expect(seen.find((e) => e.path === "Streamed.md")).toMatchObject({ kind: "note.created", source: "indx" });
    expect(seen.find((e) => e.path === "Welcome.md")).toMatchObject({ kind: "note.updated", source: "external" });
    expect(seen.every((e) => e.kind.startsWith("note."))).toBe(true);
  });

  test("a write by another indx process (a CLI next to the server) reaches the stream via events.log", async () => {
    const controller = new AbortController();
    const res = await fetch(`${server.url}/v1/events?kinds=note.created`, { headers: { authorization: `Bearer ${reader}` }, signal: controller.signal });
    const stream = res.body!.getReader();
    let text = "";
    const pump = (async () => {
      try {
        while (true) {
          const { value, done } = await stream.read();
          if (done) break;
          text += new TextDecoder().decode(value);
        }
      } catch {}
    })();
    // Another OpContext is what another process has: its own event hub, the same events.log.
    const other = sb.context({ watch: false });
    await invoke(noteWrite, other, { path: "From the CLI.md", body: "# From the CLI\n" });
    other.close();
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && !text.includes("From the CLI.md")) await Bun.sleep(25);
    // Past the watcher's debounce: the server also saw the file appear, and must not repeat it.
    await Bun.sleep(600);
    controller.abort();
    await pump;
    const frame = text.split("\n\n").find((f) => f.includes("From the CLI.md"))!;
    const event = JSON.parse(
      frame
        .split("\n")
        .find((l) => l.startsWith("data: "))!
        .slice(6),
    );
    expect(event).toMatchObject({ kind: "note.created", source: "indx", path: "From the CLI.md" });
    expect(text.split("From the CLI.md").length - 1).toBe(1);
  });

  test("an unknown kind is a 400", async () => {
    const r = await call("GET", "/v1/events?kinds=nope");
    expect(r.status).toBe(400);
  });
});
