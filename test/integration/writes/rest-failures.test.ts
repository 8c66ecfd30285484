import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../../src/config/load.ts";
import { etagOf } from "../../../src/core/hash.ts";
import { type RunningServer, startServer } from "../../../src/http/serve.ts";
import { noteWrite } from "../../../src/notes/write-ops.ts";
import { invoke } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

let sb: Sandbox;
let server: RunningServer;
let key: string;

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  expect(text).not.toContain(sb.dir);
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

beforeAll(async () => {
  sb = sandbox({ "Existing.md": "# Existing\n\nfirst words\n" });
  server = await startServer(sb.context(), { host: "127.0.0.1", port: 0, watch: false, notice: () => {} });
  key = loadConfig({ env: sb.env }).str("server.api_key")!;
});

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

describe("REST writes answer typed errors, never a 500", () => {
  test("a 300-byte file name is path_invalid (400) naming the limit; nothing is written", async () => {
    const name = `${"n".repeat(297)}.md`;
    const r = await call("PUT", `/v1/notes/${name}`, { body: "# Long\n" });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("path_invalid");
    expect(r.body.error.message).toContain("255 bytes");
    expect(existsSync(join(sb.vault, name.slice(0, 200)))).toBe(false);
  });

  test("If-Match: * matches an existing note (RFC 9110) and fails with 412 on a missing one", async () => {
    const replaced = await call("PUT", "/v1/notes/Existing.md", { body: "# Existing\n\nsecond words\n" }, { "if-match": "*" });
    expect(replaced.status).toBe(200);
    expect(readFileSync(join(sb.vault, "Existing.md"), "utf8")).toBe("# Existing\n\nsecond words\n");
    const patched = await call("PATCH", "/v1/notes/Existing.md", { ops: [{ op: "append_body", markdown: "third\n" }] }, { "if-match": "*" });
    expect(patched.status).toBe(200);
    const missing = await call("PUT", "/v1/notes/Missing.md", { body: "# Missing\n" }, { "if-match": "*" });
    expect(missing.status).toBe(412);
    expect(missing.body.error.code).toBe("etag_mismatch");
    expect(existsSync(join(sb.vault, "Missing.md"))).toBe(false);
  });

  test("the data folder deleted under a running server: reads answer index_missing (503) with the fix, writes land and say the index lags", async () => {
    expect((await call("GET", "/v1/search?q=words")).status).toBe(200);
    expect((await call("PUT", "/v1/notes/Before.md", { body: "# Before\n" }, { "idempotency-key": "before-delete" })).status).toBe(201);
    rmSync(sb.dataDir, { recursive: true, force: true });
    const search = await call("GET", "/v1/search?q=words");
    expect([search.status, search.body.error?.code]).toEqual([503, "index_missing"]);
    expect(search.body.error.details.fix).toBe("indx vault index");

    const written = await call("PUT", "/v1/notes/After.md", { body: "# After\n" });
    expect(written.status).toBe(201);
    expect(etagOf(readFileSync(join(sb.vault, "After.md")))).toBe(written.body.data.etag);
    expect(written.body.data.warnings.map((w: { code: string }) => w.code)).toEqual(["index_not_updated"]);

    const keyed = await call("PUT", "/v1/notes/Keyed.md", { body: "# Keyed\n" }, { "idempotency-key": "after-delete" });
    expect(keyed.status).toBe(201);
    expect(existsSync(join(sb.dataDir, "state.db"))).toBe(true);
    const replay = await call("PUT", "/v1/notes/Keyed.md", { body: "# Keyed\n" }, { "idempotency-key": "after-delete" });
    expect(replay.headers.get("x-indx-idempotent-replay")).toBe("true");
  });
});

test("a write whose reindex fails (a damaged index) has landed: it answers success with index_not_updated, not an error", async () => {
  const own = sandbox({ "A.md": "# A\n" });
  try {
    const ctx = own.context();
    await ctx.updateIndex({ build: true });
    const db = new Database(join(own.dataDir, "index.db"));
    db.run("DROP TABLE blocks");
    db.close();
    const written = (await invoke(noteWrite, ctx, { path: "B.md", body: "# B\n" })) as { etag: string; warnings: { code: string; message: string }[] };
    expect(written.etag).toBe(etagOf(readFileSync(join(own.vault, "B.md"))));
    expect(written.warnings.map((w) => w.code)).toEqual(["index_not_updated"]);
    expect(written.warnings[0]!.message).not.toContain(own.dir);
    ctx.close();
  } finally {
    own.cleanup();
  }
});
