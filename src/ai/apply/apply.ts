import { IndxError, toIndxError } from "../../core/errors.ts";
import { planNotePatch, requireText } from "../../notes/write-ops.ts";
import type { OpContext } from "../../ops/context.ts";
import type { Warning } from "../../ops/schemas.ts";
import { unifiedDiff } from "../../writes/diff.ts";
import type { Change, FileState } from "../../writes/pipeline.ts";
import { normalizeEtag } from "../../writes/schemas.ts";
import { frontmatterOf, frontmatterOps, type NotePlanner } from "./plan.ts";

/** A note written by an apply, with its new etag (read-after-write) and what the operation says about it. */
export interface AppliedNote<D> {
  path: string;
  etag: string;
  detail: D;
}

/** A planned edit as a dry run lists it: the note's version and the unified diff of the write. */
export interface PlannedEdit {
  path: string;
  etag: string;
  diff: string;
}

export interface ApplyOptions {
  /** The caller's path → etag: a note at another version is a conflict. */
  ifMatch?: Record<string, string>;
  /** stop (default): the first conflict ends the apply with ai_apply_conflict; skip: a warning, and on. */
  mode?: "stop" | "skip";
  /** Plan every note exactly as an apply would, inside the same locks, and write nothing. */
  dryRun?: boolean;
  /** Each path as it is written: the call's ai.invocation event lists them even when a conflict ends it. */
  written: string[];
}

export interface ApplyReport<D> {
  applied: AppliedNote<D>[];
  planned: PlannedEdit[];
  warnings: Warning[];
}

type Outcome<D> =
  | { kind: "conflict"; expected: string; actual: string | null }
  | { kind: "unchanged" }
  | { kind: "planned"; edit: PlannedEdit; detail: D; text: string };

/**
 * The one multi-note apply of the AI operations (docs/decisions.md, "AI apply"). Notes go in path
 * order, each as one atomic write through the write pipeline, planned from the note as read inside
 * the write lock with note_patch's own frontmatter editing. A batch is best effort: a note that
 * cannot be written is a warning and the rest go on; a note whose frontmatter would not change is
 * not written (apply_skipped_no_change); an if_match mismatch stops the apply (ai_apply_conflict,
 * with what was already written) or, in skip mode, is a warning.
 */
export async function applyPlans<D>(ctx: OpContext, op: string, planners: readonly NotePlanner<D>[], opts: ApplyOptions): Promise<ApplyReport<D>> {
  const report: ApplyReport<D> = { applied: [], planned: [], warnings: [] };
  const sorted = [...planners].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const planner of sorted) {
    const expected = normalizeEtag(opts.ifMatch?.[planner.path]);
    let outcome: Outcome<D>;
    let etag: string | undefined;
    try {
      const done = await ctx.writer.transact(op, [planner.path], (io) => {
        const value = planNote(ctx, planner, io.read(planner.path), expected);
        const changes: Change[] =
          value.kind === "planned" && !opts.dryRun ? [{ type: "write", path: planner.path, text: value.text, expect: { etag: value.edit.etag } }] : [];
        return { changes, value };
      });
      outcome = done.value;
      etag = done.etags[planner.path];
      report.warnings.push(...done.warnings.map((w) => ({ ...w, path: planner.path })));
    } catch (err) {
      const e = toIndxError(err);
      report.warnings.push({ code: "apply_failed", path: planner.path, message: `${planner.path} was not written (${e.code}): ${e.message}` });
      continue;
    }
    if (outcome.kind === "conflict") {
      const failed = { path: planner.path, expected: outcome.expected, actual: outcome.actual };
      if (opts.mode !== "skip")
        throw new IndxError("ai_apply_conflict", `${planner.path} changed since the given if_match; the notes before it were written.`, {
          failed: [failed],
          applied: report.applied.map((a) => ({ path: a.path, etag: a.etag })),
        });
      report.warnings.push({ code: "etag_mismatch", path: planner.path, message: `${planner.path} changed since the given if_match; it was skipped.` });
    } else if (outcome.kind === "unchanged") {
      report.warnings.push({ code: "apply_skipped_no_change", path: planner.path, message: `Applying would not change ${planner.path}; it was not written.` });
    } else if (opts.dryRun) {
      report.planned.push(outcome.edit);
    } else if (etag !== undefined) {
      opts.written.push(planner.path);
      report.applied.push({ path: planner.path, etag, detail: outcome.detail });
    }
  }
  return report;
}

/** One note's edit, planned inside the write lock from the note as it is on disk. */
function planNote<D>(ctx: OpContext, planner: NotePlanner<D>, before: FileState, expected: string | undefined): Outcome<D> {
  if (expected !== undefined && !(expected === "*" ? before.exists : before.etag === expected)) return { kind: "conflict", expected, actual: before.etag };
  const text = requireText(before);
  const frontmatter = frontmatterOf(planner.path, text);
  const { set, detail } = planner.plan(frontmatter);
  const ops = frontmatterOps(frontmatter, set);
  if (ops.length === 0) return { kind: "unchanged" };
  const result = planNotePatch(ctx, planner.path, text, ops);
  if (!result.changed) return { kind: "unchanged" };
  return { kind: "planned", edit: { path: planner.path, etag: before.etag!, diff: unifiedDiff(planner.path, text, result.text) }, detail, text: result.text };
}
