import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { App } from "../../../src/app/context.ts";
import { noteMove } from "../../../src/notes/move-ops.ts";
import { noteRead } from "../../../src/notes/ops.ts";
import { tagRename } from "../../../src/tags/rename-ops.ts";
import { invoke } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/**
 * A multi-file write that ran answers what it did, not its whole plan again (issue 30): the plan
 * (each line before and after) is the dry run's answer; the applied answer names each file with
 * its new etag and how many lines changed.
 */
let sb: Sandbox;
let ctx: App;

beforeAll(async () => {
  const files: Record<string, string> = { "Target.md": "# Target\n" };
  for (let i = 0; i < 6; i++) files[`Notes/n${i}.md`] = `# N${i}\n\nSee [t](../Target.md) about #alpha here, a long line of text ${"word ".repeat(30)}\n`;
  sb = sandbox(files);
  ctx = sb.context();
  await ctx.updateIndex({ build: true });
});

afterAll(() => {
  ctx?.close();
  sb?.cleanup();
});

describe("an applied multi-file write", () => {
  test("tag_rename: the dry run is the plan; the applied answer is each file with its new etag and line count", async () => {
    const plan = await invoke(tagRename, ctx, { from: "alpha", to: "beta", dry_run: true });
    expect(JSON.stringify(plan.files)).toContain('"before"');
    const done = await invoke(tagRename, ctx, { from: "alpha", to: "beta", plan_etag: plan.plan_etag });
    expect(JSON.stringify(done)).not.toContain('"before"');
    expect(JSON.stringify(done).length).toBeLessThan(JSON.stringify(plan).length / 2);
    expect(done.files).toHaveLength(6);
    for (const f of done.files) {
      expect(f.etag).toBe((await invoke(noteRead, ctx, { path: f.path, include: [] })).etag);
      expect(f).toMatchObject({ lines_changed: 1 });
    }
  });

  test("note_move: the same", async () => {
    const done = await invoke(noteMove, ctx, { from: "Target.md", to: "Moved/Target.md" });
    expect(JSON.stringify(done)).not.toContain('"before"');
    expect(done.files).toHaveLength(6);
    for (const f of done.files) expect(f.etag).toBe((await invoke(noteRead, ctx, { path: f.path, include: [] })).etag);
  });
});
