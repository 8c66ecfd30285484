/**
 * A vault that writes relative Markdown links and keeps attachments beside their notes
 * (newLinkFormat relative, useMarkdownLinks, attachmentFolderPath ./assets): note_move and
 * attachment_write follow it on every surface.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runIndex } from "../../src/index/build/indexer.ts";
import { type Surfaces, startSurfaces } from "../support/surfaces.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

const FILES = {
  ".obsidian/app.json": JSON.stringify({ newLinkFormat: "relative", useMarkdownLinks: true, attachmentFolderPath: "./assets" }),
  "Projects/Alpha.md": "# Alpha\n\nSee [Beta note](Beta%20note.md), [[Beta note#Intro|the intro]] and ![](assets/chart.png).\n",
  "Projects/Beta note.md": "# Beta\n\n## Intro\n\nBack to [Alpha](Alpha.md).\n",
  "Projects/assets/chart.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]),
  "Archive/Old.md": "[beta](../Projects/Beta%20note.md)\n",
  "Gamma.md": "# Gamma\n",
};

const LIMIT = 64 * 1024;

let sb: Sandbox;
let s: Surfaces;

beforeAll(async () => {
  sb = sandbox(FILES);
  sb.env.INDX_MAX_ATTACHMENT_BYTES = String(LIMIT);
  const ctx = sb.context();
  runIndex(ctx.vault);
  ctx.close();
  s = await startSurfaces(sb);
});

afterAll(async () => {
  await s?.close();
  sb?.cleanup();
});

const read = (path: string) => readFileSync(join(sb.vault, path), "utf8");
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

describe("note_move writes relative Markdown links", () => {
  const expected = {
    "Projects/Alpha.md":
      "# Alpha\n\nSee [Beta note](../Archive/2026/Beta%20note.md), [[../Archive/2026/Beta note#Intro|the intro]] and ![](assets/chart.png).\n",
    "Archive/Old.md": "[beta](2026/Beta%20note.md)\n",
    // Its own link still lands on Alpha.md by name, so it stays as written (docs/decisions.md, "Which links a move rewrites").
    "Archive/2026/Beta note.md": "# Beta\n\n## Intro\n\nBack to [Alpha](Alpha.md).\n",
  };

  test("REST and CLI dry runs plan the same edits; MCP applies them", async () => {
    const body = { to: "Archive/2026/Beta note.md", dry_run: true };
    const rest = await s.rest("POST", `/v1/notes/${encodeURIComponent("Projects")}/${encodeURIComponent("Beta note.md")}/move`, body);
    expect(rest.status).toBe(200);
    const planned = rest.body.data.files;
    expect(planned.map((f: { path: string }) => f.path).sort()).toEqual(["Archive/Old.md", "Projects/Alpha.md"]);

    const cli = await s.cli(["note", "move", "Projects/Beta note.md", "Archive/2026/Beta note.md", "--dry-run", "--json"]);
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout).files).toEqual(planned);

    const client = await s.mcp();
    const moved = await client.callTool({ name: "note_move", arguments: { from: "Projects/Beta note.md", to: "Archive/2026/Beta note.md" } });
    expect(moved.isError).not.toBe(true);
    // Applied: each planned file (the moved one under its new path) with the lines it changed, not the plan again.
    const applied = (moved.structuredContent as { files: { path: string; lines_changed: number }[] }).files;
    expect(applied.map((f) => [f.path, f.lines_changed])).toEqual(
      planned.map((f: { path: string; changes: unknown[] }) => [f.path === "Projects/Beta note.md" ? "Archive/2026/Beta note.md" : f.path, f.changes.length]),
    );
    for (const [path, text] of Object.entries(expected)) expect({ path, text: read(path) }).toEqual({ path, text });
    expect(existsSync(join(sb.vault, "Projects/Beta note.md"))).toBe(false);
  });
});

describe("attachment_write lands in the configured folder and returns the vault's embed", () => {
  test("REST JSON: beside the note, a taken name numbered as Obsidian does", async () => {
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 9, 9]);
    const r = await s.rest("POST", "/v1/attachments", { name: "chart.png", note: "Projects/Alpha.md", data_base64: b64(bytes) });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ path: "Projects/assets/chart 1.png", renamed: true, mime: "image/png", size: 6, embed: "![](assets/chart%201.png)" });
    expect(r.headers.get("etag")).toBe(`"${r.body.data.etag}"`);
    expect(new Uint8Array(readFileSync(join(sb.vault, "Projects/assets/chart 1.png")))).toEqual(bytes);
    expect(readFileSync(join(sb.vault, "Projects/assets/chart.png"))[4]).toBe(1);
  });

  test("REST raw body: the bytes as sent, the other fields in the query string", async () => {
    const bytes = new Uint8Array(2048).map((_, i) => (i * 7) % 256);
    const r = await s.rest("POST", `/v1/attachments?name=${encodeURIComponent("photo one.jpg")}&note=Archive/Old.md`, bytes, { "content-type": "image/jpeg" });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ path: "Archive/assets/photo one.jpg", renamed: false, size: 2048, embed: "![](assets/photo%20one.jpg)" });
    expect(new Uint8Array(readFileSync(join(sb.vault, "Archive/assets/photo one.jpg")))).toEqual(bytes);
  });

  test("CLI: indx attachment put --file", async () => {
    const file = join(sb.dir, "scan.pdf");
    writeFileSync(file, "%PDF-1.7 fake");
    const out = await s.cli(["attachment", "put", "--file", file, "--note", "Projects/Alpha.md", "--json"]);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ path: "Projects/assets/scan.pdf", embed: "![](assets/scan.pdf)" });
    expect(read("Projects/assets/scan.pdf")).toBe("%PDF-1.7 fake");
  });

  test("MCP: without a note, ./assets is a folder at the root; the index and events see the file", async () => {
    const client = await s.mcp();
    const events: string[] = [];
    const stop = s.ctx.events.subscribe((e) => void ("path" in e && e.path === "assets/voice.mp3" && events.push(e.kind)));
    const r = await client.callTool({ name: "attachment_write", arguments: { name: "voice.mp3", data_base64: b64(new Uint8Array([1, 2, 3])) } });
    stop();
    expect(r.structuredContent).toMatchObject({ path: "assets/voice.mp3", embed: "![](assets/voice.mp3)", created: true });
    expect(s.ctx.index.files.paths()).toContain("assets/voice.mp3");
    expect(events).toEqual(["note.created"]);
  });

  test("refusals are typed and write nothing: a note's extension, bad base64, a taken name with on_conflict fail, too large", async () => {
    const md = await s.rest("POST", "/v1/attachments", { name: "Sneaky.md", data_base64: b64(new TextEncoder().encode("# hi")) });
    expect(md.status).toBe(400);
    expect(md.body.error.details).toMatchObject({ field: "name", reason: "extension" });
    expect((await s.rest("POST", "/v1/attachments", { name: "x.png", data_base64: "not base64!" })).status).toBe(400);
    expect((await s.rest("POST", "/v1/attachments", { name: "../x.png", data_base64: "" })).status).toBe(400);
    const taken = await s.rest("POST", "/v1/attachments", { name: "chart.png", note: "Projects/Alpha.md", data_base64: "AAAA", on_conflict: "fail" });
    expect(taken.status).toBe(409);
    const big = new Uint8Array(LIMIT + 1);
    const json = await s.rest("POST", "/v1/attachments", { name: "big.png", data_base64: b64(big) });
    expect(json.status).toBe(413);
    expect(json.body.error.details).toMatchObject({ limit: LIMIT });
    const raw = await s.rest("POST", "/v1/attachments?name=big.png", big, { "content-type": "application/octet-stream" });
    expect(raw.status).toBe(413);
    for (const p of ["Sneaky.md", "x.png", "big.png", "assets/big.png", "Projects/assets/chart 2.png"]) expect(existsSync(join(sb.vault, p))).toBe(false);
  });
});
