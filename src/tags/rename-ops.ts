import { Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import { defineOp } from "../ops/define.ts";
import { Warning } from "../ops/schemas.ts";
import type { FileEdit } from "../writes/edit.ts";
import { fingerprintOf } from "../writes/idempotency.ts";
import type { Change } from "../writes/pipeline.ts";
import { DryRun, IdempotencyKey, PlannedOrWrittenFiles, plannedFiles, writtenFiles } from "../writes/schemas.ts";
import { planTagRename } from "./rename.ts";

/** Identifies a plan by the exact versions of the notes it was made from. */
const planEtag = (edits: FileEdit[]) => fingerprintOf(edits.map((e) => [e.path, e.etag]).sort()).slice(0, 16);

const TagName = (what: string) => Type.String({ minLength: 1, maxLength: 200, description: `${what} tag.` });

export const tagRename = defineOp({
  name: "tag_rename",
  errors: ["path_invalid", "not_found", "patch_target_not_found", "encoding_unsupported", "idempotency_key_reused", "already_exists", "etag_mismatch"],
  title: "Rename a tag across the vault",
  description: "Rename a tag and its nested tags everywhere. dry_run first, then apply with its plan_etag.",
  scope: "vault:write",
  destructive: true,
  dryRunNeedsRead: true,
  safe: false,
  input: Type.Object(
    {
      from: TagName("The current"),
      to: TagName("The new"),
      dry_run: Type.Optional(DryRun),
      plan_etag: Type.Optional(Type.String({ maxLength: 64, description: "plan_etag of the dry run to apply." })),
      idempotency_key: Type.Optional(IdempotencyKey),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    from: Type.String(),
    to: Type.String(),
    dry_run: Type.Boolean(),
    notes: Type.Integer({ description: "Notes changed (or to be changed)." }),
    occurrences: Type.Integer(),
    plan_etag: Type.String(),
    files: PlannedOrWrittenFiles("Dry run: each note's changed lines, before and after. Applied: each note's new etag and lines changed."),
    warnings: Type.Array(Warning),
  }),
  async run(ctx, input) {
    const result = (plan: ReturnType<typeof planTagRename>, dryRun: boolean, warnings: Warning[], etags: Record<string, string> = {}) => ({
      from: input.from.replace(/^#/, ""),
      to: input.to.replace(/^#/, ""),
      dry_run: dryRun,
      notes: plan.notes,
      occurrences: plan.occurrences,
      plan_etag: planEtag(plan.edits),
      files: dryRun ? plannedFiles(plan.edits) : writtenFiles(plan.edits, etags),
      warnings,
    });
    const preview = planTagRename(ctx.vault, ctx.index, input.from, input.to);
    if (input.dry_run) return result(preview, true, []);

    const done = await ctx.writer.transact(
      "tag_rename",
      preview.edits.map((e) => e.path),
      () => {
        const plan = planTagRename(ctx.vault, ctx.index, input.from, input.to);
        const actual = planEtag(plan.edits);
        if (input.plan_etag !== undefined && input.plan_etag !== actual)
          throw new IndxError("etag_mismatch", "Notes changed since the dry run; run it again and review the new plan.", {
            expected: input.plan_etag,
            actual,
          });
        const changes: Change[] = plan.edits.map((e) => ({ type: "write", path: e.path, text: e.text, expect: { etag: e.etag } }));
        return {
          changes,
          value: plan,
          events: [{ kind: "tag.renamed" as const, source: "indx" as const, op: "tag_rename", count: plan.notes }],
        };
      },
    );
    return result(done.value, false, done.warnings, done.etags);
  },
  summary: (o) =>
    `${o.dry_run ? "would rename" : "renamed"} #${o.from} → #${o.to}: ${o.occurrences} occurrence${o.occurrences === 1 ? "" : "s"} in ${o.notes} note${o.notes === 1 ? "" : "s"}`,
});
