import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { applyPlans } from "../../../src/ai/ops/apply/apply.ts";
import type { NotePlanner } from "../../../src/ai/ops/apply/plan.ts";
import { proposedPatches } from "../../../src/ai/ops/apply/proposed.ts";
import type { App } from "../../../src/app/context.ts";
import { etagOf } from "../../../src/core/hash.ts";
import type { VaultEvent } from "../../../src/events/types.ts";
import { applyUnifiedDiff } from "../../support/unified-diff.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/** The multi-note apply the AI operations share, on a real vault through the real write pipeline. */
let sb: Sandbox;
let ctx: App;

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

  test("many notes: a mismatch in the middle of a transaction's batch still writes the notes before it, and only those", async () => {
    const many = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`n${String(i).padStart(3, "0")}.md`, `# Note ${i}\n`]));
    await setup(many);
    const paths = Object.keys(many);
    const events: VaultEvent[] = [];
    ctx.events.subscribe((e) => events.push(e));
    const written: string[] = [];
    const err = await applyPlans(ctx, "ai_test", paths.map(statusPlanner), { ifMatch: { "n100.md": "0000000000000000" }, written }).then(
      () => ({ code: "none", details: null }),
      (e: { code: string; details: any }) => e,
    );
    expect(err).toMatchObject({ code: "ai_apply_conflict", details: { failed: [{ path: "n100.md" }] } });
    const before = paths.slice(0, 100);
    expect(err.details.applied).toEqual(before.map((path) => ({ path, etag: etag(path) })));
    expect(written).toEqual(before);
    expect(paths.filter((p) => read(p).startsWith("---\nstatus: done\n"))).toEqual(before);
    expect(events.filter((e) => e.kind === "note.updated").map((e) => e.path)).toEqual(before);

    const skipped = await applyPlans(ctx, "ai_test", paths.map(statusPlanner), { ifMatch: { "n100.md": "0000000000000000" }, mode: "skip", written: [] });
    expect(skipped.applied.map((a) => a.path)).toEqual(paths.slice(101));
    expect(skipped.warnings.filter((w) => w.code !== "apply_skipped_no_change")).toEqual([expect.objectContaining({ code: "etag_mismatch", path: "n100.md" })]);
    expect(read("n100.md")).toBe("# Note 100\n");
  });

  test("a note whose write fails is a warning; the notes before and after it in the batch are written", async () => {
    await setup({ ...notes, "c/x.md": "# X\n", "d.md": "# D\n" });
    const events: VaultEvent[] = [];
    ctx.events.subscribe((e) => events.push(e));
    const unlock = readOnlyFolder(join(sb.vault, "c"));
    let report: Awaited<ReturnType<typeof applyPlans<{ set: string[] }>>>;
    try {
      report = await applyPlans(ctx, "ai_test", ["a.md", "b.md", "c/x.md", "d.md"].map(statusPlanner), { written: [] });
    } finally {
      unlock();
    }
    expect(report.applied.map((a) => [a.path, a.etag])).toEqual(["a.md", "b.md", "d.md"].map((p) => [p, etag(p)]));
    expect(report.warnings.map((w) => [w.code, w.path])).toEqual([["apply_failed", "c/x.md"]]);
    expect(read("c/x.md")).toBe("# X\n");
    expect(events.filter((e) => e.kind === "note.updated").map((e) => e.path)).toEqual(["a.md", "b.md", "d.md"]);
  });
});

/**
 * A folder nothing can be written into, for as long as the test needs (the undo is returned). Root
 * ignores permissions, so as root the folder is made immutable instead.
 */
function readOnlyFolder(dir: string): () => void {
  const asRoot = process.getuid?.() === 0;
  const chattr = (flag: string) => Bun.spawnSync(["chattr", flag, dir]).exitCode === 0;
  if (asRoot) chattr("+i");
  else chmodSync(dir, 0o555);
  const undo = () => (asRoot ? chattr("-i") : chmodSync(dir, 0o755));
  try {
    writeFileSync(join(dir, ".probe"), "");
  } catch {
    return undo;
  }
  undo();
  throw new Error(`${dir} could not be made read-only here`);
}
