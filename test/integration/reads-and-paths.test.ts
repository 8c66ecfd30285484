import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { baseQuery } from "../../src/bases/ops.ts";
import { loadConfig } from "../../src/config/load.ts";
import { noteExists, noteRead } from "../../src/notes/ops.ts";
import { attachmentGet } from "../../src/notes/retrieval-ops.ts";
import { invoke, rejection } from "../support/ops.ts";
import { type Surfaces, startSurfaces } from "../support/surfaces.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** Reads and paths without dead ends (issue 29): the limit bounds what is returned, names resolve, paths and types are right. */

let sb: Sandbox;
let s: Surfaces;

const BIG = `# Big\n\nline three\nline four\n${"x".repeat(99)}\n`.padEnd(2_600_000, "filler text\n");

beforeAll(async () => {
  sb = sandbox({
    "Big.md": BIG,
    "Projects/Apollo Launch.md": "# Apollo Launch\n\nLaunch day.\n",
    "Ideas.md": "# Ideas\n",
    "a:b.md": "# colon\n",
    "Books.base":
      'filters:\n  and:\n    - file.inFolder("Projects")\nviews:\n  - type: table\n    name: All\n  - type: table\n    name: Second\n    order: [file.name]\n',
    "Reading.md": "# Reading\n\n![[Books.base#Second]]\n",
    "files/plan.yaml": "a: 1\n",
    "files/report.docx": "PK",
  });
  s = await startSurfaces(sb);
  await s.ctx.updateIndex({ build: true });
});
afterAll(async () => {
  await s.close();
  sb.cleanup();
});

describe("reads", () => {
  test("a line range of a note over the whole-note limit is returned; the limit applies to the lines", async () => {
    const out = await invoke(noteRead, s.ctx, { path: "Big.md", from: 3, lines: 2 });
    expect(out.range?.text).toBe("line three\nline four\n");
    expect(out.size).toBe(Buffer.byteLength(BIG));
    expect((await rejection(invoke(noteRead, s.ctx, { path: "Big.md" }))).code).toBe("payload_too_large");
    const cli = await s.cli(["note", "get", "Big.md:3-4", "--raw"]);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toBe("line three\nline four\n");
    const tooMany = await rejection(invoke(noteRead, s.ctx, { path: "Big.md", from: 1 }));
    expect(tooMany.code).toBe("payload_too_large");
    expect(tooMany.message).toContain("fewer lines");
  });

  test("note get-many resolves names as note get does", async () => {
    const out = await s.cli(["note", "get-many", "Apollo Launch", "Ideas", "--json"]);
    expect(out.code).toBe(0);
    const body = JSON.parse(out.stdout) as { notes: { path: string }[]; errors: unknown[] };
    expect(body.notes.map((n) => n.path)).toEqual(["Projects/Apollo Launch.md", "Ideas.md"]);
    expect(body.errors).toEqual([]);
  });

  test("over MCP a dry run of a write needs vault:read only, as over REST; the write itself needs vault:write", async () => {
    const client = await s.mcp(["vault:read"]);
    const dry = await client.callTool({ name: "note_write", arguments: { path: "New.md", body: "x", dry_run: true } });
    expect(dry.isError).not.toBe(true);
    const wet = await client.callTool({ name: "note_write", arguments: { path: "New.md", body: "x" } });
    expect(wet.isError).toBe(true);
    expect(JSON.stringify(wet.content)).toContain("forbidden");
  });
});

describe("paths, types and settings", () => {
  test("a colon inside a relative name is a path on POSIX", async () => {
    const out = await invoke(noteRead, s.ctx, { path: "a:b.md" });
    expect(out.title).toBe("a:b");
    expect((await invoke(noteExists, s.ctx, { path: "a:b.md" })).exists).toBe(true);
  });

  test("yaml and docx attachments carry their registered types", async () => {
    expect((await invoke(attachmentGet, s.ctx, { path: "files/plan.yaml" })).mime).toBe("application/yaml");
    expect((await invoke(attachmentGet, s.ctx, { path: "files/report.docx" })).mime).toBe(
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    );
  });

  test("server.cors_origins refuses a wildcard with a typed error", async () => {
    const set = await s.cli(["config", "set", "server.cors_origins", "*"]);
    expect(set.code).toBe(2);
    expect(set.stderr).toContain("wildcard");
    expect(() => loadConfig({ env: { ...sb.env, INDX_CORS_ORIGINS: "https://a.example,*" } }).list("server.cors_origins")).toThrow("wildcard");
  });

  test("base query of a note that embeds a base runs the embedded base, its #view first", async () => {
    const out = await invoke(baseQuery, s.ctx, { path: "Reading.md" });
    expect(out.path).toBe("Books.base");
    expect(out.view.name).toBe("Second");
    expect(out.rows.map((r) => r.path)).toEqual(["Projects/Apollo Launch.md"]);
  });
});
