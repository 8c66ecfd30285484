import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { IndxError } from "../../src/core/errors.ts";
import { startServer } from "../../src/http/serve.ts";
import { vaultStatus } from "../../src/maintenance/ops.ts";
import { FRONTMATTER_MAX_DEPTH } from "../../src/markdown/frontmatter.ts";
import { noteList } from "../../src/notes/ops.ts";
import { notePatch, noteWrite } from "../../src/notes/write-ops.ts";
import { vaultSearch } from "../../src/search/ops.ts";
import { invoke } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");
const LOOP = "---\na: &a [*a]\n---\n# Loop\n\nloopword\n";
const DEEP = `---\nx: ${"[".repeat(1200)}${"]".repeat(1200)}\nstatus: deep\n---\n# Deep\n\ndeepword\n`;
const ACTIVE = "---\nstatus: active\n---\n# Active\n\nactiveword\n";

let sb: Sandbox | null = null;
afterEach(() => {
  sb?.cleanup();
  sb = null;
});

const listed = async (ctx: ReturnType<Sandbox["context"]>, input: Record<string, unknown>) =>
  ((await invoke(noteList, ctx, input)) as { notes: { path: string }[] }).notes.map((n) => n.path);

describe("one bad frontmatter never breaks the vault", () => {
  test("`indx vault index` indexes an alias loop and 1,200-level nesting with frontmatter warnings", async () => {
    sb = sandbox({ "Loop.md": LOOP, "Deep.md": DEEP, "Active.md": ACTIVE });
    const p = Bun.spawnSync([process.execPath, MAIN, "vault", "index"], { env: sb.env, stdout: "pipe", stderr: "pipe" });
    expect(p.stderr.toString()).toBe("");
    expect(p.exitCode).toBe(0);
    const report = JSON.parse(p.stdout.toString()) as { added: number; warnings: { code: string; path: string; message: string }[] };
    expect(report.added).toBe(3);
    expect(report.warnings.sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { code: "frontmatter_invalid", path: "Deep.md", message: `frontmatter is nested deeper than ${FRONTMATTER_MAX_DEPTH} levels` },
      { code: "frontmatter_invalid", path: "Loop.md", message: "frontmatter refers to itself (a YAML alias loop)" },
    ]);
    const ctx = sb.context();
    const status = (await invoke(vaultStatus, ctx, {})) as { warnings: { code: string; path: string }[] };
    expect(status.warnings.map((w) => [w.code, w.path])).toEqual([
      ["frontmatter_invalid", "Deep.md"],
      ["frontmatter_invalid", "Loop.md"],
    ]);
    ctx.close();
  });

  test("frontmatter filters keep answering beside a deeply nested note, which counts as having no frontmatter", async () => {
    sb = sandbox({ "Deep.md": DEEP, "Active.md": ACTIVE, "Plain.md": "# Plain\n\nactiveword\n" });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    expect(await listed(ctx, { frontmatter: { status: "active" } })).toEqual(["Active.md"]);
    expect(await listed(ctx, { frontmatter: { status: "deep" } })).toEqual([]);
    expect(await listed(ctx, { frontmatter: { status: null } })).toEqual(["Deep.md", "Plain.md"]);
    const hits = (await invoke(vaultSearch, ctx, { q: "activeword", mode: "lexical", frontmatter: { status: "active" } })) as { results: { path: string }[] };
    expect(hits.results.map((r) => r.path)).toEqual(["Active.md"]);
    ctx.close();
  });

  test("a path pass (the watcher's) indexes every other note changed together with a looping one", async () => {
    sb = sandbox({ "Active.md": ACTIVE });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    sb.write("Loop.md", LOOP);
    sb.write("Fresh.md", "# Fresh\n\nfreshword\n");
    const report = await ctx.updateIndex({ paths: ["Loop.md", "Fresh.md"] });
    expect(report.added).toBe(2);
    const hits = (await invoke(vaultSearch, ctx, { q: "freshword loopword", mode: "lexical" })) as { results: { path: string }[] };
    expect(hits.results.map((r) => r.path).sort()).toEqual(["Fresh.md", "Loop.md"]);
    ctx.close();
  });
});

describe("writes refuse frontmatter that has no data form, before writing anything", () => {
  const refused = async (run: () => Promise<unknown>, reason?: string) => {
    const err = await run().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(IndxError);
    expect((err as IndxError).code).toBe("validation_failed");
    if (reason) expect((err as IndxError).details?.reason).toBe(reason);
  };

  test("note_write: an alias loop or too deep nesting in the body or in `frontmatter` is validation_failed; nothing is written", async () => {
    sb = sandbox();
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    await refused(() => invoke(noteWrite, ctx, { path: "Loop.md", body: LOOP }), "frontmatter_alias_loop");
    await refused(() => invoke(noteWrite, ctx, { path: "Deep.md", body: DEEP }), "frontmatter_too_deep");
    let nested: unknown = "leaf";
    for (let i = 0; i < FRONTMATTER_MAX_DEPTH; i++) nested = [nested];
    // The input's own nesting bound (INPUT_LIMITS) refuses this one before the frontmatter check.
    await refused(() => invoke(noteWrite, ctx, { path: "Object.md", body: "# x\n", frontmatter: { nested } }));
    for (const name of ["Loop.md", "Deep.md", "Object.md"]) expect(existsSync(join(sb.vault, name))).toBe(false);
    ctx.close();
  });

  test("note_patch: body edits of a note whose frontmatter loops still work; a property edit there is parse_failed", async () => {
    sb = sandbox({ "Loop.md": LOOP });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    const patched = (await invoke(notePatch, ctx, { path: "Loop.md", ops: [{ op: "append_body", markdown: "more\n" }] })) as { frontmatter_error?: string };
    expect(patched.frontmatter_error).toBe("frontmatter refers to itself (a YAML alias loop)");
    const err = await invoke(notePatch, ctx, { path: "Loop.md", ops: [{ op: "set_frontmatter", key: "b", value: 1 }] }).catch((e: unknown) => e);
    expect((err as IndxError).code).toBe("parse_failed");
    ctx.close();
  });

  test("REST: serve starts on a vault holding a looping note, and a PUT of one is 400 with nothing on disk", async () => {
    sb = sandbox({ "Loop.md": LOOP, "Active.md": ACTIVE });
    const server = await startServer(sb.context(), { host: "127.0.0.1", port: 0, watch: false, notice: () => {} });
    try {
      const key = loadConfig({ env: sb.env }).str("server.api_key")!;
      const put = async (path: string, body: unknown) => {
        const res = await fetch(`${server.url}/v1/notes/${path}`, {
          method: "PUT",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
      };
      const loop = await put("New.md", { body: LOOP });
      expect([loop.status, loop.body.error?.code]).toEqual([400, "validation_failed"]);
      const deep = await put("Deeper.md", { body: DEEP });
      expect([deep.status, deep.body.error?.code]).toEqual([400, "validation_failed"]);
      expect(existsSync(join(sb.vault, "New.md"))).toBe(false);
      expect(existsSync(join(sb.vault, "Deeper.md"))).toBe(false);
      const ok = await put("Fine.md", { body: "# Fine\n" });
      expect(ok.status).toBe(201);
    } finally {
      await server.stop();
    }
  });
});
