import { IndxError } from "../../../core/errors.ts";
import type { OpContext } from "../../../ops/context.ts";
import type { Warning } from "../../../ops/schemas.ts";
import { applyBatch, type BatchOptions, type NoteResult, type PlannedEdit } from "./batch.ts";
import type { NotePlanner } from "./plan.ts";

/** A note written by an apply, with its new etag (read-after-write) and what the operation says about it. */
export interface AppliedNote<D> {
  path: string;
  etag: string;
  detail: D;
}

export interface ApplyOptions extends BatchOptions {
  /** Each path as it is written: the call's ai.invocation event lists them even when a conflict ends it. */
  written: string[];
}

export interface ApplyReport<D> {
  applied: AppliedNote<D>[];
  planned: PlannedEdit[];
  warnings: Warning[];
}

/**
 * The one multi-note apply of the AI operations (docs/decisions.md, "AI apply"). Notes go in path
 * order, each as one atomic write through the write pipeline (several notes to a transaction, see
 * applyBatch), planned from the note as read inside the write lock with note_patch's own
 * frontmatter editing. It is best effort: a note that cannot be written is a warning and the rest
 * go on; a note whose frontmatter would not change is not written (apply_skipped_no_change); an
 * if_match mismatch stops the apply (ai_apply_conflict, with what was already written) or, in
 * skip mode, is a warning.
 */
export async function applyPlans<D>(ctx: OpContext, op: string, planners: readonly NotePlanner<D>[], opts: ApplyOptions): Promise<ApplyReport<D>> {
  const report: ApplyReport<D> = { applied: [], planned: [], warnings: [] };
  const queue = [...planners].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (let next = 0; next < queue.length; ) {
    const notes = await applyBatch(ctx, op, queue.slice(next), opts);
    next += notes.length;
    for (const note of notes) record(report, note, opts);
  }
  return report;
}

function record<D>(report: ApplyReport<D>, { path, outcome, warnings }: NoteResult<D>, opts: ApplyOptions): void {
  report.warnings.push(...warnings);
  switch (outcome.kind) {
    case "conflict": {
      const changed = outcome.atReplace ? `${path} changed on disk while the apply was writing it` : `${path} changed since the given if_match`;
      if (opts.mode !== "skip")
        throw new IndxError("ai_apply_conflict", `${changed}; the notes before it were written.`, {
          failed: [{ path, expected: outcome.expected, actual: outcome.actual }],
          applied: report.applied.map((a) => ({ path: a.path, etag: a.etag })),
        });
      report.warnings.push({ code: "etag_mismatch", path, message: `${changed}; it was skipped.` });
      return;
    }
    case "unchanged":
      report.warnings.push({ code: "apply_skipped_no_change", path, message: `Applying would not change ${path}; it was not written.` });
      return;
    case "failed":
      report.warnings.push({ code: "apply_failed", path, message: `${path} was not written (${outcome.error.code}): ${outcome.error.message}` });
      return;
    case "planned":
      report.planned.push(outcome.edit);
      return;
    case "written":
      opts.written.push(path);
      report.applied.push({ path, etag: outcome.etag, detail: outcome.detail });
  }
}
