import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { App } from "../../../src/app/context.ts";
import { TokenStore } from "../../../src/auth/tokens.ts";
import { loadConfig } from "../../../src/config/load.ts";
import { type RunningServer, startServer } from "../../../src/http/serve.ts";
import { vaultReindex } from "../../../src/maintenance/ops.ts";
import { type FakeAiServer, fakeChatEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";
import { metadataReplies, tagReplies } from "../../support/fake-replies.ts";
import { assertRestOutput, CheckedClient, invoke } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/** ai_tag and ai_metadata over REST and MCP over HTTP: suggest, apply, and what a read-only token sees and may do. */
let fake: FakeAiServer;
let sb: Sandbox;
let ctx: App;
let server: RunningServer;
let admin: string;
let reader: string;

const NOTES = {
  "Inbox/a.md": "# A\n\nTags wanted: ops, Bad Tag!\n\nFields wanted: status=active; due=yesterday\n",
  "Inbox/b.md": "---\ntags: [inbox]\n---\n# B\n\nTags wanted: ops\n\nFields wanted: status=done\n",
};
const FIELDS = [
  { key: "status", type: "enum", enum: ["active", "done"] },
  { key: "due", type: "date" },
];

beforeAll(async () => {
  fake = startFakeAiServer();
  fake.onChat((chat) => tagReplies(chat) ?? metadataReplies(chat));
  sb = sandbox(NOTES);
  Object.assign(sb.env, fakeChatEnv(fake));
  ctx = sb.context();
  await invoke(vaultReindex, ctx, {});
  server = await startServer(ctx, { host: "127.0.0.1", port: 0, notice: () => {}, watch: false });
  admin = loadConfig({ env: sb.env }).str("server.api_key")!;
  reader = new TokenStore(sb.dataDir).create("reader", ["vault:read"]).token;
});

afterAll(async () => {
  await server?.stop();
  fake?.stop();
  sb?.cleanup();
});

const read = (path: string) => readFileSync(join(sb.vault, path), "utf8");

async function post(token: string, path: string, body: unknown) {
  const res = await fetch(server.url + path, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  assertRestOutput("POST", path, json);
  return { status: res.status, body: json };
}

async function connect(token: string) {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const client = new CheckedClient({ name: "apply-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

describe("REST", () => {
  test("POST /v1/ai/tag and /v1/ai/metadata suggest with warnings for invalid output; a read token is forbidden to apply", async () => {
    const tag = await post(reader, "/v1/ai/tag", { scope: { kind: "glob", path_glob: "Inbox/**" } });
    expect(tag.status).toBe(200);
    expect(tag.body.data.suggestions.map((s: any) => s.tags.map((t: any) => t.tag))).toEqual([["ops"], ["ops"]]);
    expect(tag.body.data.warnings.map((w: any) => w.code)).toContain("tag_invalid");
    const meta = await post(reader, "/v1/ai/metadata", { scope: { kind: "glob", path_glob: "Inbox/**" }, fields: FIELDS });
    expect(meta.status).toBe(200);
    expect(meta.body.data.results[0].fields.due.value).toBeNull();
    expect(meta.body.data.warnings.find((w: any) => w.code === "metadata_invalid").message).toContain("yesterday");

    const refused = await post(reader, "/v1/ai/tag", { scope: { kind: "glob", path_glob: "Inbox/**" }, apply: true });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "forbidden", details: { needed: "vault:write" } });
    expect(read("Inbox/a.md")).toBe(NOTES["Inbox/a.md"]);
    // ai_toc's `write` goes through the same input-dependent check.
    const toc = await post(reader, "/v1/ai/toc", { mode: "note", path: "Inbox/a.md", write: { path: "Index.md" } });
    expect(toc.status).toBe(403);
    expect(toc.body.error.message).toContain("vault:write");
  });

  test("a conflict is 409 ai_apply_conflict with what failed; OpenAPI fetched with a read token shows the suggest-only form", async () => {
    const res = await post(admin, "/v1/ai/metadata", {
      scope: { kind: "glob", path_glob: "Inbox/**" },
      fields: FIELDS,
      apply: true,
      if_match: { "Inbox/a.md": "0000000000000000" },
    });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: "ai_apply_conflict",
      details: { failed: [{ path: "Inbox/a.md", expected: "0000000000000000" }], applied: [] },
    });
    expect(read("Inbox/a.md")).toBe(NOTES["Inbox/a.md"]);

    const spec = async (token?: string) =>
      (await fetch(`${server.url}/openapi.json`, token ? { headers: { authorization: `Bearer ${token}` } } : {}).then((r) => r.json())) as any;
    const schemaOf = (doc: any) => doc.paths["/v1/ai/tag"].post.requestBody.content["application/json"].schema.properties;
    const full = schemaOf(await spec());
    expect(full.apply).toBeTruthy();
    expect(full.if_match).toBeTruthy();
    const readOnly = await spec(reader);
    expect(Object.keys(schemaOf(readOnly))).not.toContain("apply");
    expect(Object.keys(schemaOf(readOnly))).not.toContain("if_match");
    expect(schemaOf(readOnly).apply_mode).toBeTruthy();
    expect(readOnly.paths["/v1/ai/tag"].post.description).toContain("Suggest-only");
    expect(readOnly.paths["/v1/ai/tag"].post.parameters.map((p: any) => p.name)).not.toContain("If-Match");
  });
});

describe("MCP over HTTP", () => {
  test("a read token lists ai_tag and ai_metadata suggest-only and gets forbidden on apply; an admin token applies", async () => {
    const r = await connect(reader);
    const a = await connect(admin);
    try {
      const tools = await r.listTools();
      for (const name of ["ai_tag", "ai_metadata"]) {
        const tool = tools.tools.find((t) => t.name === name)!;
        expect(Object.keys(tool.inputSchema.properties ?? {})).not.toContain("apply");
        expect(Object.keys(tool.inputSchema.properties ?? {})).not.toContain("if_match");
        expect(tool.description).toContain("Suggest-only");
        expect(tool.annotations?.readOnlyHint).toBe(true);
      }
      const full = (await a.listTools()).tools.find((t) => t.name === "ai_tag")!;
      expect(Object.keys(full.inputSchema.properties ?? {})).toContain("apply");

      const refused = await r.callTool({ name: "ai_tag", arguments: { scope: { kind: "paths", paths: ["Inbox/b.md"] }, apply: true } });
      expect(refused.isError).toBe(true);
      expect(JSON.parse((refused.content as { text: string }[])[0]!.text)).toMatchObject({ code: "forbidden" });

      const suggested = await r.callTool({ name: "ai_tag", arguments: { scope: { kind: "paths", paths: ["Inbox/b.md"] } } });
      expect((suggested.structuredContent as any).proposed_patches[0].ops).toEqual([{ op: "set_frontmatter", key: "tags", value: ["inbox", "ops"] }]);

      const applied = await a.callTool({ name: "ai_tag", arguments: { scope: { kind: "paths", paths: ["Inbox/b.md"] }, apply: true } });
      expect((applied.structuredContent as any).applied[0]).toMatchObject({ path: "Inbox/b.md", tags_added: ["ops"] });
      expect(read("Inbox/b.md")).toStartWith("---\ntags:\n  - inbox\n  - ops\n---\n");
      const meta = await a.callTool({ name: "ai_metadata", arguments: { scope: { kind: "paths", paths: ["Inbox/b.md"] }, fields: FIELDS, apply: true } });
      expect((meta.structuredContent as any).applied[0].fields_set).toEqual(["status"]);
    } finally {
      await r.close();
      await a.close();
    }
  });
});
