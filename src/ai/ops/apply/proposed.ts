import { toIndxError } from "../../../core/errors.ts";
import type { OpContext } from "../../../ops/context.ts";
import type { Warning } from "../../../ops/schemas.ts";
import { readNote } from "../../../vault/read.ts";
import { frontmatterOf, frontmatterOps, type NotePlanner } from "./plan.ts";
import type { ProposedPatch } from "./proposed-patch.ts";

/**
 * The suggestions as note_patch calls, for a caller that reviews before writing: planned from each
 * note as it is now, exactly as an apply would plan them, and pinned to the version the
 * suggestions were made from, so note_patch refuses them if the note changed since.
 */
export function proposedPatches<D>(ctx: OpContext, planners: readonly NotePlanner<D>[]): { patches: ProposedPatch[]; warnings: Warning[] } {
  const patches: ProposedPatch[] = [];
  const warnings: Warning[] = [];
  for (const planner of [...planners].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    try {
      const text = readNote(ctx.vault, planner.path, { allowLarge: true }).text;
      const frontmatter = frontmatterOf(planner.path, text);
      const ops = frontmatterOps(frontmatter, planner.plan(frontmatter).set);
      if (ops.length) patches.push({ path: planner.path, if_match: planner.etag, ops, reason: planner.reason, related_to: [] });
    } catch (err) {
      const e = toIndxError(err);
      warnings.push({ code: "apply_failed", path: planner.path, message: `No patch is proposed for ${planner.path} (${e.code}): ${e.message}` });
    }
  }
  return { patches, warnings };
}
