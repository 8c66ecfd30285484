import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { App } from "../../../src/app/context.ts";
import { canvasPatch, canvasRead, canvasWrite } from "../../../src/canvas/ops.ts";
import { etagOf } from "../../../src/core/hash.ts";
import { LINK_DST_SQL } from "../../../src/index/storage/schema.ts";
import { noteMove } from "../../../src/notes/move-ops.ts";
import { notePatch } from "../../../src/notes/write-ops.ts";
import { tagRename } from "../../../src/tags/rename-ops.ts";
import { TEMP_PREFIX } from "../../../src/writes/atomic.ts";
import { indexRows } from "../../support/index-rows.ts";
import { invoke, rejection } from "../../support/ops.ts";

import { type Sandbox, sandbox } from "../../support/vault.ts";

let sb: Sandbox;
let ctx: App;

async function setup(files: Record<string, string>) {
  sb = sandbox(files);
  ctx = sb.context();
  await ctx.updateIndex({ build: true });
}

afterEach(() => {
  ctx?.close();
  sb?.cleanup();
});

function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const abs = join(dir, name);
      if (statSync(abs).isDirectory()) walk(abs);
      else out.set(relative(root, abs).split("\\").join("/"), etagOf(readFileSync(abs)));
    }
  };
  walk(root);
  return out;
}

/** An editor saves `path` once, after the write has read and planned it and before any file is replaced. */
function editorSavesDuringStaging(path: string, text: string): void {
  const remove = ctx.writer.onStaged((paths) => {
    if (!paths.includes(path)) return;
    sb.write(path, text);
    remove();
  });
}

describe("note_move", () => {
  const files = {
    "Projects/Plan.md": "# Plan\n\n## Goals\n\nText ^goal\n",
    "A.md": "See [[Plan]], [[Plan#Goals|the goals]] and ![[Plan#^goal]].\n",
    "B.md": '---\nrelated: "[[Plan]]"\n---\nA [md link](Projects/Plan.md) and `[[Plan]]` in code.\n',
    "C.md": "Nothing here.\n",
    "Board.canvas": '{\n\t"nodes":[\n\t\t{"id":"1","type":"file","file":"Projects/Plan.md","x":0,"y":0,"width":100,"height":100}\n\t],\n\t"edges":[]\n}',
  };

  test("dry run plans exactly what the move then does; nothing else changes", async () => {
    await setup(files);
    const before = snapshot(sb.vault);
    const dry = (await invoke(noteMove, ctx, { from: "Projects/Plan.md", to: "Archive/Plan 2025.md", dry_run: true })) as any;
    expect(snapshot(sb.vault)).toEqual(before);
    expect(dry.files.map((f: any) => f.path).sort()).toEqual(["A.md", "B.md", "Board.canvas"]);

    const done = (await invoke(noteMove, ctx, { from: "Projects/Plan.md", to: "Archive/Plan 2025.md" })) as any;
    // Applied, the answer names each planned file with its new etag and the lines it changed, not the plan again.
    expect(done.files.map((f: any) => [f.path, f.lines_changed])).toEqual(dry.files.map((f: any) => [f.path, f.changes.length]));
    for (const f of done.files) expect(f.etag).toBe(etagOf(readFileSync(join(sb.vault, f.path))));
    expect(done.links_updated).toBe(dry.links_updated);
    expect(existsSync(join(sb.vault, "Projects/Plan.md"))).toBe(false);
    expect(done.etag).toBe(etagOf(readFileSync(join(sb.vault, "Archive/Plan 2025.md"))));

    const after = snapshot(sb.vault);
    for (const [path, etag] of before) {
      if (["A.md", "B.md", "Board.canvas", "Projects/Plan.md"].includes(path)) continue;
      expect(after.get(path)).toBe(etag);
    }
    const a = readFileSync(join(sb.vault, "A.md"), "utf8");
    expect(a).toBe("See [[Plan 2025]], [[Plan 2025#Goals|the goals]] and ![[Plan 2025#^goal]].\n");
    expect(readFileSync(join(sb.vault, "B.md"), "utf8")).toContain("`[[Plan]]` in code");
    const backlinks = indexRows<{ n: number }>(ctx, `SELECT count(*) AS n FROM links l WHERE ${LINK_DST_SQL} = ?`, "Archive/Plan 2025.md")[0]!.n;
    expect(backlinks).toBe(5);
  });

  test("refuses a taken destination, a kind change, a stale etag", async () => {
    await setup(files);
    expect((await rejection(invoke(noteMove, ctx, { from: "A.md", to: "C.md" }))).code).toBe("already_exists");
    expect((await rejection(invoke(noteMove, ctx, { from: "A.md", to: "A.png" }))).code).toBe("validation_failed");
    expect((await rejection(invoke(noteMove, ctx, { from: "A.md", to: "Z.md", if_match: "0000000000000000" }))).code).toBe("etag_mismatch");
    expect((await rejection(invoke(noteMove, ctx, { from: "A.md", to: "../Z.md" }))).code).toBe("path_invalid");
    expect(existsSync(join(sb.vault, "A.md"))).toBe(true);
  });

  test("a dry run needs only vault:read; the move itself needs vault:write", async () => {
    await setup(files);
    const reader = ctx.forCall({ scopes: new Set(["vault:read"]) });
    expect(((await invoke(noteMove, reader, { from: "A.md", to: "Z.md", dry_run: true })) as any).dry_run).toBe(true);
    expect((await rejection(invoke(noteMove, reader, { from: "A.md", to: "Z.md" }))).code).toBe("forbidden");
  });

  test("a save from an editor after the plan read a file is not overwritten, and the move is all or nothing: etag_mismatch, no file replaced", async () => {
    await setup(files);
    const saved = "See [[Plan]], saved in an editor meanwhile.\n";
    editorSavesDuringStaging("B.md", saved);
    const err = await rejection(invoke(noteMove, ctx, { from: "Projects/Plan.md", to: "Archive/Plan 2025.md" }));
    expect(err).toMatchObject({ code: "etag_mismatch", details: { path: "B.md", expected: etagOf(files["B.md"]), actual: etagOf(saved), files_written: 0 } });
    // No link points at a path the note never reached.
    expect(readFileSync(join(sb.vault, "A.md"), "utf8")).toBe(files["A.md"]);
    expect(readFileSync(join(sb.vault, "B.md"), "utf8")).toBe(saved);
    expect(readFileSync(join(sb.vault, "Board.canvas"), "utf8")).toBe(files["Board.canvas"]);
    expect(existsSync(join(sb.vault, "Projects/Plan.md"))).toBe(true);
    expect(existsSync(join(sb.dataDir, "write-journal.json"))).toBe(false);
  });
});

describe("rename_heading through note_patch", () => {
  test("links to the heading follow it, in this note and in others", async () => {
    await setup({
      "Spec.md": "# Spec\n\n## Open questions\n\nSee [[#Open questions]].\n",
      "Other.md": "Read [[Spec#Open questions|the questions]] and [[Spec#Spec]].\n",
    });
    await invoke(notePatch, ctx, { path: "Spec.md", ops: [{ op: "rename_heading", from: "Open questions", to: "Decisions" }] });
    expect(readFileSync(join(sb.vault, "Spec.md"), "utf8")).toBe("# Spec\n\n## Decisions\n\nSee [[#Decisions]].\n");
    expect(readFileSync(join(sb.vault, "Other.md"), "utf8")).toBe("Read [[Spec#Decisions|the questions]] and [[Spec#Spec]].\n");
  });
});

describe("tag_rename", () => {
  const files = {
    "One.md": "---\ntags:\n  - project/alpha\n  - other\n---\n# One #project/alpha/sub\n\n```\n#project/alpha in code\n```\n",
    "Two.md": "Inline #project/alpha and `#project/alpha` and #project/alphabet.\n",
  };

  test("the dry run lists exactly the edits the apply makes; code is untouched", async () => {
    await setup(files);
    const dry = (await invoke(tagRename, ctx, { from: "project/alpha", to: "#project/beta", dry_run: true })) as any;
    expect(dry.notes).toBe(2);
    const applied = (await invoke(tagRename, ctx, { from: "project/alpha", to: "project/beta", plan_etag: dry.plan_etag })) as any;
    expect(applied.files.map((f: any) => [f.path, f.lines_changed])).toEqual(dry.files.map((f: any) => [f.path, f.changes.length]));
    expect(readFileSync(join(sb.vault, "One.md"), "utf8")).toBe(
      "---\ntags:\n  - project/beta\n  - other\n---\n# One #project/beta/sub\n\n```\n#project/alpha in code\n```\n",
    );
    expect(readFileSync(join(sb.vault, "Two.md"), "utf8")).toBe("Inline #project/beta and `#project/alpha` and #project/alphabet.\n");
    const tags = indexRows<{ tag: string }>(ctx, "SELECT DISTINCT tag FROM tags ORDER BY tag").map((r) => r.tag);
    expect(tags).not.toContain("project/alpha");
  });

  test("apply refuses when a planned note changed since the dry run", async () => {
    await setup(files);
    const dry = (await invoke(tagRename, ctx, { from: "project/alpha", to: "project/beta", dry_run: true })) as any;
    sb.write("Two.md", "Inline #project/alpha, edited meanwhile.\n");
    const err = await rejection(invoke(tagRename, ctx, { from: "project/alpha", to: "project/beta", plan_etag: dry.plan_etag }));
    expect(err.code).toBe("etag_mismatch");
    expect(readFileSync(join(sb.vault, "One.md"), "utf8")).toContain("project/alpha");
  });

  test("a save from an editor after the plan read a note is not overwritten, and the rename is all or nothing: etag_mismatch names it, no note replaced", async () => {
    await setup({ ...files, "Three.md": "Also #project/alpha.\n" });
    const saved = "Inline #project/alpha, saved in an editor meanwhile.\n";
    editorSavesDuringStaging("Three.md", saved);
    const err = await rejection(invoke(tagRename, ctx, { from: "project/alpha", to: "project/beta" }));
    expect(err).toMatchObject({ code: "etag_mismatch", details: { path: "Three.md", files_written: 0, files_planned: 3 } });
    expect(readFileSync(join(sb.vault, "One.md"), "utf8")).toBe(files["One.md"]);
    expect(readFileSync(join(sb.vault, "Three.md"), "utf8")).toBe(saved);
    expect(readFileSync(join(sb.vault, "Two.md"), "utf8")).toBe(files["Two.md"]);
    expect(indexRows<{ path: string }>(ctx, "SELECT DISTINCT f.path FROM tags t JOIN files f ON f.id = t.file_id WHERE t.tag = 'project/beta'")).toEqual([]);
    expect(readdirSync(sb.vault).filter((f) => f.startsWith(TEMP_PREFIX))).toEqual([]);
  });
});

describe("canvas", () => {
  const SAMPLE = join(import.meta.dir, "../../../fixtures/jsoncanvas-sample");

  test("the JSON Canvas sample reads and survives a no-op write byte for byte", async () => {
    const name = readdirSync(SAMPLE).find((f) => f.endsWith(".canvas"))!;
    const original = readFileSync(join(SAMPLE, name), "utf8");
    await setup({ "Sample.canvas": original });
    const read = (await invoke(canvasRead, ctx, { path: "Sample.canvas" })) as any;
    expect(read.canvas.nodes.length).toBeGreaterThan(0);
    const written = (await invoke(canvasWrite, ctx, { path: "Sample.canvas", canvas: read.canvas, if_match: read.etag })) as any;
    expect(written.changed).toBe(false);
    expect(readFileSync(join(sb.vault, "Sample.canvas"), "utf8")).toBe(original);
  });

  test("an invalid canvas is refused with details; patch removes a node with its edges", async () => {
    await setup({ "B.canvas": JSON.stringify({ nodes: [], edges: [] }, null, "\t") });
    const bad = await rejection(
      invoke(canvasWrite, ctx, {
        path: "B.canvas",
        canvas: { nodes: [{ id: "x", type: "text", x: 0, y: 0, width: 1, height: 1 }], edges: [{ id: "e", fromNode: "x", toNode: "missing" }] },
      }),
    );
    expect(bad.code).toBe("validation_failed");
    expect(JSON.stringify(bad.details)).toContain("missing");
    const node = (id: string) => ({ id, type: "text", text: id, x: 0, y: 0, width: 100, height: 50 });
    await invoke(canvasPatch, ctx, {
      path: "B.canvas",
      ops: [
        { op: "add_node", node: node("a") },
        { op: "add_node", node: node("b") },
        { op: "add_edge", edge: { id: "ab", fromNode: "a", toNode: "b" } },
      ],
    });
    const out = (await invoke(canvasPatch, ctx, { path: "B.canvas", ops: [{ op: "remove_node", id: "a" }] })) as any;
    expect(out).toMatchObject({ nodes: 1, edges: 0 });
  });
});
