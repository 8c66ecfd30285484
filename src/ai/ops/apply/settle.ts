import { Type } from "@sinclair/typebox";
import type { OpContext } from "../../../ops/context.ts";
import type { Warning } from "../../../ops/schemas.ts";
import { type AppliedNote, applyPlans } from "./apply.ts";
import type { PlannedEdit } from "./batch.ts";
import type { ApplyInput } from "./controls.ts";
import type { NotePlanner } from "./plan.ts";
import { proposedPatches } from "./proposed.ts";
import { ProposedPatch } from "./proposed-patch.ts";

/** Output fields every AI operation that may apply shares (`applied` is the operation's own). */
export const SettledOutputs = {
  proposed_patches: Type.Optional(Type.Array(ProposedPatch, { description: "Without apply: the edits as note_patch calls, to review and send." })),
  planned: Type.Optional(
    Type.Array(
      Type.Object({
        path: Type.String(),
        etag: Type.String({ description: "The version the plan was made from." }),
        diff: Type.String({ description: "Unified diff of the write apply would make." }),
      }),
      { description: "apply with dry_run: each note's edit as apply would make it; nothing written." },
    ),
  ),
};

export interface Settled<D> {
  applied?: AppliedNote<D>[];
  proposed_patches?: ProposedPatch[];
  planned?: PlannedEdit[];
  warnings: Warning[];
}

/**
 * What becomes of an AI operation's suggestions, by its input: proposed patches (suggest-only),
 * the planned edits (a dry run), or the notes written (apply). Runs as runAi's finish step, so
 * every call does it afresh and `written` reaches the call's ai.invocation event.
 */
export async function settle<D>(ctx: OpContext, op: string, input: ApplyInput, planners: readonly NotePlanner<D>[], written: string[]): Promise<Settled<D>> {
  if (input.apply !== true) {
    const { patches, warnings } = proposedPatches(ctx, planners);
    return { proposed_patches: patches, warnings };
  }
  const report = await applyPlans(ctx, op, planners, {
    ...(input.if_match ? { ifMatch: input.if_match } : {}),
    mode: input.if_match_mode ?? "stop",
    dryRun: input.dry_run === true,
    written,
  });
  return input.dry_run === true ? { planned: report.planned, warnings: report.warnings } : { applied: report.applied, warnings: report.warnings };
}

/**
 * The finish step of an AI operation that writes notes (ai_tag, ai_metadata, ai_extract): its
 * result with what settle() made of it — each note written with the operation's own detail, the
 * proposed patches or the plan — and settle's warnings after the result's own.
 */
export async function settleInto<R extends { warnings: Warning[] }, D extends object>(
  ctx: OpContext,
  op: string,
  input: ApplyInput,
  planners: readonly NotePlanner<D>[],
  written: string[],
  result: R,
) {
  const settled = await settle(ctx, op, input, planners, written);
  return {
    ...result,
    ...(settled.applied ? { applied: settled.applied.map((a) => ({ path: a.path, etag: a.etag, ...a.detail })) } : {}),
    ...(settled.proposed_patches ? { proposed_patches: settled.proposed_patches } : {}),
    ...(settled.planned ? { planned: settled.planned } : {}),
    warnings: [...result.warnings, ...settled.warnings],
  };
}
