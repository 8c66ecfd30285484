import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { applyPlans } from "../../../src/ai/apply/apply.ts";
import type { NotePlanner } from "../../../src/ai/apply/plan.ts";
import { proposedPatches } from "../../../src/ai/apply/proposed.ts";
import { etagOf } from "../../../src/core/hash.ts";
import type { VaultEvent } from "../../../src/events/types.ts";
import type { OpContext } from "../../../src/ops/context.ts";
import { applyUnifiedDiff } from "../../support/unified-diff.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/** The multi-note apply the AI operations share, on a real vault through the real write pipeline. */
let sb: Sandbox;
let ctx: OpContext;

afterEach(() => {
  ctx?.close();
  sb?.cleanup();
});

async function setup(files: Record<string, string>) {
  sb = sandbox(files);
  ctx = sb.context();
  await ctx.updateIndex({ build: true });
}

const read = (path: string) => readFileSync(join(sb.vault, path), "utf8");
const etag = (path: string) => etagOf(readFileSync(join(sb.vault, path)));

/** Sets `status: done` and keeps the frontmatter's other keys as they are on disk. */
function statusPlanner(path: string): NotePlanner<{ set: string[] }> {
  return { path, etag: etag(path), reason: "status", plan: () => ({ set: { status: "done" }, detail: { set: ["status"] } }) };
}

const notes = {
  "b.md": "---\nstatus: open\nowner: ann # keep this comment\n---\n# B\n",
  "a.md": "# A\n\nNo frontmatter yet.\n",
  "c.md": "---\nstatus: done\n---\n# C\n",
};

describe("applyPlans", () => {
  test("writes notes in path order, each once, and leaves an unchanged one alone with apply_skipped_no_change", async () => {
    await setup(notes);
    const events: VaultEvent[] = [];
    ctx.events.subscribe((e) => events.push(e));
    const written: string[] = [];
    const report = await applyPlans(ctx, "ai_test", ["c.md", "b.md", "a.md"].map(statusPlanner), { written });
    expect(report.applied.map((a) => a.path)).toEqual(["a.md", "b.md"]);
    expect(report.applied.map((a) => a.etag)).toEqual([etag("a.md"), etag("b.md")]);
    expect(written).toEqual(["a.md", "b.md"]);
    expect(report.warnings.map((w) => [w.code, w.path])).toEqual([["apply_skipped_no_change", "c.md"]]);
    expect(read("a.md")).toBe("---\nstatus: done\n---\n# A\n\nNo frontmatter yet.\n");
    expect(read("b.md")).toBe("---\nstatus: done\nowner: ann # keep this comment\n---\n# B\n");
    expect(events.filter((e) => e.kind === "note.updated").map((e) => e.path)).toEqual(["a.md", "b.md"]);

    const again = await applyPlans(ctx, "ai_test", ["c.md", "b.md", "a.md"].map(statusPlanner), { written: [] });
    expect(again.applied).toEqual([]);
    expect(again.warnings.map((w) => w.code)).toEqual(["apply_skipped_no_change", "apply_skipped_no_change", "apply_skipped_no_change"]);
  });

  test("an if_match mismatch stops with ai_apply_conflict after the notes before it; skip mode goes on", async () => {
    await setup(notes);
    const planners = ["a.md", "b.md", "c.md"].map(statusPlanner);
    const ifMatch = { "a.md": etag("a.md"), "b.md": "0000000000000000" };
    const bBefore = read("b.md");
    const err = await applyPlans(ctx, "ai_test", planners, { ifMatch, written: [] }).then(
      () => ({ code: "none", details: null }),
      (e: { code: string; details: any }) => e,
    );
    expect(err).toMatchObject({ code: "ai_apply_conflict", details: { failed: [{ path: "b.md", expected: "0000000000000000", actual: etag("b.md") }] } });
    expect(err.details.applied).toEqual([{ path: "a.md", etag: etag("a.md") }]);
    expect(read("b.md")).toBe(bBefore);

    const skipped = await applyPlans(ctx, "ai_test", planners, { ifMatch: { "b.md": "0000000000000000" }, mode: "skip", written: [] });
    expect(skipped.warnings.map((w) => [w.code, w.path])).toEqual([
      ["apply_skipped_no_change", "a.md"],
      ["etag_mismatch", "b.md"],
      ["apply_skipped_no_change", "c.md"],
    ]);
    expect(read("b.md")).toBe(bBefore);
  });

  test("a dry run plans exactly what the apply then writes, and writes nothing", async () => {
    await setup(notes);
    const before = { "a.md": read("a.md"), "b.md": read("b.md") };
    const dry = await applyPlans(ctx, "ai_test", ["a.md", "b.md"].map(statusPlanner), { dryRun: true, written: [] });
    expect(dry.applied).toEqual([]);
    expect(read("a.md")).toBe(before["a.md"]);
    await applyPlans(ctx, "ai_test", ["a.md", "b.md"].map(statusPlanner), { written: [] });
    // Each planned diff, applied by an independent reader of the format, gives what apply then wrote.
    expect(dry.planned?.map((p) => ({ path: p.path, etag: p.etag, after: applyUnifiedDiff(before[p.path as keyof typeof before], p.diff) }))).toEqual(
      (["a.md", "b.md"] as const).map((path) => ({ path, etag: etagOf(before[path]), after: read(path) })),
    );
  });

  test("a note that cannot be edited is a warning and the others are written; proposed patches plan the same edits", async () => {
    await setup({ ...notes, "bad.md": "---\nstatus: [unclosed\n---\n# Bad\n" });
    const planners = ["a.md", "bad.md", "c.md"].map(statusPlanner);
    const proposed = proposedPatches(ctx, planners);
    expect(proposed.patches).toEqual([
      { path: "a.md", if_match: etag("a.md"), ops: [{ op: "set_frontmatter", key: "status", value: "done" }], reason: "status", related_to: [] },
    ]);
    expect(proposed.warnings.map((w) => [w.code, w.path])).toEqual([["apply_failed", "bad.md"]]);
    const report = await applyPlans(ctx, "ai_test", planners, { written: [] });
    expect(report.applied.map((a) => a.path)).toEqual(["a.md"]);
    expect(report.warnings.map((w) => [w.code, w.path])).toEqual([
      ["apply_failed", "bad.md"],
      ["apply_skipped_no_change", "c.md"],
    ]);
    expect(read("bad.md")).toBe("---\nstatus: [unclosed\n---\n# Bad\n");
  });
});
