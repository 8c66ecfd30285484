import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { App } from "../../../src/app/context.ts";
import { TokenStore } from "../../../src/auth/tokens.ts";
import { loadConfig } from "../../../src/config/load.ts";
import { etagOf } from "../../../src/core/hash.ts";
import { type RunningServer, startServer } from "../../../src/http/serve.ts";
import { McpHub } from "../../../src/mcp/hub.ts";
import { createSession, type McpSession } from "../../../src/mcp/session.ts";
import { notePatch, noteWrite } from "../../../src/notes/write-ops.ts";
import { assertCliOutput, assertRestOutput, CheckedClient, commandOps, invoke, rejection } from "../../support/ops.ts";
import { applyUnifiedDiff } from "../../support/unified-diff.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/** dry_run on note_write and note_patch: the planned diff, nothing written, and the real call applies exactly that diff. */

const MAIN = join(import.meta.dir, "..", "..", "..", "src", "main.ts");

const PLAN = "# Plan\n\n## Goals\n\n- ship\n\n## Tasks\n\n- [ ] one\n- [ ] two\n\n## Notes\n\nkept as is\n";

let sb: Sandbox;
let ctx: App;
let server: RunningServer;
let admin: string;
let reader: string;
let hub: McpHub;
let session: McpSession;
let client: CheckedClient;
let commands: Awaited<ReturnType<typeof commandOps>>;

beforeAll(async () => {
  sb = sandbox({
    "Plan.md": PLAN,
    "Linker.md": "See [[Plan#Tasks]] and [[Plan#Goals]].\n",
    "Bom.md": "\uFEFF# Bom\n\nfirst\n",
    "Crlf.md": "# Crlf\r\n\r\nline\r\n",
  });
  ctx = sb.context();
  server = await startServer(ctx, { host: "127.0.0.1", port: 0, notice: () => {}, watch: false });
  admin = loadConfig({ env: sb.env }).str("server.api_key")!;
  reader = new TokenStore(sb.dataDir).create("reader", ["vault:read"]).token;
  hub = new McpHub(ctx);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  session = await createSession(hub, { scopes: new Set(["vault:read", "vault:write"]) });
  await session.server.connect(serverSide);
  client = new CheckedClient({ name: "dry-run", version: "0" });
  await client.connect(clientSide);
  commands = await commandOps();
});

afterAll(async () => {
  await client?.close();
  await session?.close();
  hub?.close();
  await server?.stop();
  sb?.cleanup();
});

async function rest(method: string, path: string, body: unknown, token = admin) {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  expect(text).not.toContain(sb.dir);
  const json = JSON.parse(text);
  assertRestOutput(method, path, json);
  return { status: res.status, etag: res.headers.get("etag"), body: json };
}

function cli(args: string[]) {
  const p = Bun.spawnSync(["bun", MAIN, ...args], { env: sb.env });
  const stdout = p.stdout.toString();
  if (stdout.startsWith("{")) assertCliOutput(commands, args, stdout);
  return { code: p.exitCode, stdout, stderr: p.stderr.toString() };
}

const bytes = (rel: string) => readFileSync(join(sb.vault, rel));
const text = (rel: string) => readFileSync(join(sb.vault, rel), "utf8").replace(/^\uFEFF/, "");
const untouched = (rel: string) => ({ bytes: bytes(rel).toString("base64"), mtime: statSync(join(sb.vault, rel)).mtimeMs });

/** What a dry run and the real call must agree on: the note as written, its etag, created/changed. */
const outcome = ({ dry_run: _d, files: _f, warnings: _w, ...note }: Record<string, unknown>) => note;

describe("note_patch dry_run", () => {
  const ops = [
    { op: "append_to_section", heading: "Tasks", markdown: "- [ ] three" },
    { op: "set_frontmatter", key: "status", value: "active" },
  ];

  test("returns the diff and writes nothing; the real call applies exactly that diff and gets the predicted etag", async () => {
    const before = text("Plan.md");
    const was = untouched("Plan.md");
    const preview = await invoke(notePatch, ctx, { path: "Plan.md", ops, dry_run: true });
    expect(untouched("Plan.md")).toEqual(was);
    expect(preview).toMatchObject({ dry_run: true, changed: true });
    expect(preview.files).toHaveLength(1);
    const [planned] = preview.files!;
    expect(planned).toMatchObject({ path: "Plan.md", etag: etagOf(bytes("Plan.md")) });
    expect(planned!.diff).toStartWith("--- a/Plan.md\n+++ b/Plan.md\n@@ ");

    const real = await invoke(notePatch, ctx, { path: "Plan.md", ops, if_match: planned!.etag! });
    expect(real.dry_run).toBe(false);
    expect(real.files).toBeUndefined();
    expect(text("Plan.md")).toBe(applyUnifiedDiff(before, planned!.diff!));
    expect(real.etag).toBe(preview.etag);
    expect(real.etag).toBe(etagOf(bytes("Plan.md")));
    expect(outcome(real)).toEqual(outcome(preview));
  });

  test("a heading rename previews the linking notes too; each diff is what lands", async () => {
    const before = { plan: text("Plan.md"), linker: text("Linker.md") };
    const rename = [{ op: "rename_heading", from: "Tasks", to: "To do" }];
    const preview = await invoke(notePatch, ctx, { path: "Plan.md", ops: rename, dry_run: true });
    expect(preview.files!.map((f) => f.path).sort()).toEqual(["Linker.md", "Plan.md"]);
    expect(text("Linker.md")).toBe(before.linker);
    await invoke(notePatch, ctx, { path: "Plan.md", ops: rename });
    const diffOf = (path: string) => preview.files!.find((f) => f.path === path)!.diff!;
    expect(text("Plan.md")).toBe(applyUnifiedDiff(before.plan, diffOf("Plan.md")));
    expect(text("Linker.md")).toBe(applyUnifiedDiff(before.linker, diffOf("Linker.md")));
    expect(text("Linker.md")).toContain("[[Plan#To do]]");
  });

  test("a dry run fails where the write would: a stale if_match, a missing heading", async () => {
    const stale = await rejection(invoke(notePatch, ctx, { path: "Plan.md", ops, if_match: "0000000000000000", dry_run: true }));
    expect(stale.code).toBe("etag_mismatch");
    const missing = await rejection(
      invoke(notePatch, ctx, { path: "Plan.md", ops: [{ op: "append_to_section", heading: "Nope", markdown: "x" }], dry_run: true }),
    );
    expect(missing.code).toBe("patch_target_not_found");
  });
});

describe("note_write dry_run", () => {
  test("creating: a diff from /dev/null, no file, 200 and no ETag over REST; the real call writes that text", async () => {
    const input = { body: "# Fresh\n\nnew note #idea\n", frontmatter: { status: "draft" } };
    const preview = await rest("PUT", "/v1/notes/Inbox/Fresh.md", { ...input, dry_run: true });
    expect(preview.status).toBe(200);
    expect(preview.etag).toBeNull();
    expect(existsSync(join(sb.vault, "Inbox/Fresh.md"))).toBe(false);
    const [planned] = preview.body.data.files;
    expect(planned).toMatchObject({ path: "Inbox/Fresh.md", etag: null });
    expect(planned.diff).toStartWith("--- /dev/null\n+++ b/Inbox/Fresh.md\n@@ -0,0 +1,");
    expect(preview.body.data).toMatchObject({ created: true, changed: true, dry_run: true, tags: ["idea"], frontmatter: { status: "draft" } });

    const real = await rest("PUT", "/v1/notes/Inbox/Fresh.md", input);
    expect(real.status).toBe(201);
    expect(text("Inbox/Fresh.md")).toBe(applyUnifiedDiff("", planned.diff));
    expect(real.etag).toBe(`"${preview.body.data.etag}"`);
    expect(outcome(real.body.data)).toEqual(outcome(preview.body.data));
  });

  test("replacing keeps the BOM and CRLF in the prediction: the etag and diff match what the write leaves", async () => {
    for (const [path, body] of [
      ["Bom.md", "# Bom\n\nsecond\n"],
      ["Crlf.md", "# Crlf\r\n\r\nline\r\nmore\r\n"],
    ] as const) {
      const before = text(path);
      const preview = await invoke(noteWrite, ctx, { path, body, dry_run: true });
      expect(preview.files![0]!.etag).toBe(etagOf(bytes(path)));
      const real = await invoke(noteWrite, ctx, { path, body, if_match: preview.files![0]!.etag! });
      expect(real.etag).toBe(preview.etag);
      expect(text(path)).toBe(applyUnifiedDiff(before, preview.files![0]!.diff!));
    }
    expect(bytes("Bom.md").subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
  });

  test("an unchanged write previews no files; if_not_exists on an existing note fails as the write would", async () => {
    const same = await invoke(noteWrite, ctx, { path: "Crlf.md", body: text("Crlf.md"), dry_run: true });
    expect(same).toMatchObject({ changed: false, files: [] });
    const exists = await rejection(invoke(noteWrite, ctx, { path: "Crlf.md", body: "x", if_not_exists: true, dry_run: true }));
    expect(exists.code).toBe("already_exists");
  });
});

describe("previews on every surface", () => {
  test("a vault:read token may preview but not write", async () => {
    const ops = [{ op: "append_body", markdown: "read-only preview" }];
    const preview = await rest("PATCH", "/v1/notes/Plan.md", { ops, dry_run: true }, reader);
    expect(preview.status).toBe(200);
    expect(preview.body.data.files[0].diff).toContain("+read-only preview");
    const write = await rest("PATCH", "/v1/notes/Plan.md", { ops }, reader);
    expect(write.status).toBe(403);
  });

  test("MCP and the CLI return the same preview as the core", async () => {
    const ops = [{ op: "prepend_body", markdown: "> pinned" }];
    const was = untouched("Plan.md");
    const direct = await invoke(notePatch, ctx, { path: "Plan.md", ops, dry_run: true });
    const viaMcp = await client.callTool({ name: "note_patch", arguments: { path: "Plan.md", ops, dry_run: true } });
    expect(viaMcp.structuredContent).toEqual(direct);
    expect(JSON.stringify(viaMcp.content)).toContain("would patch Plan.md");
    const viaCli = cli(["note", "patch", "Plan.md", "--ops", JSON.stringify(ops), "--dry-run", "--json"]);
    expect(viaCli.code).toBe(0);
    expect(JSON.parse(viaCli.stdout)).toEqual(direct);
    // Replacing an existing note needs --yes, but a dry run replaces nothing.
    const update = cli(["note", "update", "Plan.md", "--body", "# Plan\n", "--dry-run", "--json"]);
    expect(update.code).toBe(0);
    expect(JSON.parse(update.stdout).files[0].diff).toContain("-## Goals");
    expect(untouched("Plan.md")).toEqual(was);
  });
});
