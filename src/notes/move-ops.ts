import { Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import { planMove } from "../links/rewrite.ts";
import { defineOp } from "../ops/define.ts";
import { PATH_MARK, VaultPath, Warning } from "../ops/schemas.ts";
import { fileKind } from "../vault/scan.ts";
import type { FileEdit } from "../writes/edit.ts";
import type { Change } from "../writes/pipeline.ts";
import { DryRun, IdempotencyKey, IfMatch, normalizeEtag, PlannedOrWrittenFiles, plannedFiles, writtenFiles } from "../writes/schemas.ts";

const countChanges = (edits: FileEdit[]) => edits.reduce((n, e) => n + e.changes.length, 0);

export const noteMove = defineOp({
  name: "note_move",
  errors: ["path_invalid", "not_found", "patch_target_not_found", "encoding_unsupported", "idempotency_key_reused", "already_exists", "etag_mismatch"],
  title: "Move or rename a note and update its links",
  description: "Move or rename a file and rewrite every link to it.",
  scope: "vault:write",
  destructive: true,
  dryRunNeedsRead: true,
  safe: false,
  input: Type.Object(
    {
      from: VaultPath,
      to: Type.String({ minLength: 1, maxLength: 1024, description: "New vault path.", [PATH_MARK]: true }),
      update_links: Type.Optional(Type.Boolean({ default: true, description: "Rewrite links to it." })),
      dry_run: Type.Optional(DryRun),
      if_match: Type.Optional(IfMatch),
      idempotency_key: Type.Optional(IdempotencyKey),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    from: Type.String(),
    to: Type.String(),
    dry_run: Type.Boolean(),
    etag: Type.Union([Type.String(), Type.Null()], { description: "Etag of the moved file (null on a dry run)." }),
    links_updated: Type.Integer({ description: "References rewritten (or to be rewritten)." }),
    files: PlannedOrWrittenFiles(
      "Every file whose references change. Dry run: each line before and after (the moved file under its old path, when its own relative links change). Applied: each file's new etag and lines changed.",
    ),
    warnings: Type.Array(Warning),
  }),
  async run(ctx, input) {
    const from = ctx.vault.safePath(input.from, "from");
    const to = ctx.vault.safePath(input.to, "to");
    if (from === to) throw new IndxError("validation_failed", "from and to are the same path.", { field: "to" });
    if (fileKind(from) !== fileKind(to))
      throw new IndxError("validation_failed", `A move keeps the kind of file: ${from} is a ${fileKind(from)}, ${to} would be a ${fileKind(to)}.`, {
        field: "to",
      });
    const ifMatch = normalizeEtag(input.if_match);
    const plan = () => (input.update_links === false ? [] : planMove(ctx.vault, ctx.index, from, to).edits);

    if (input.dry_run) {
      const edits = plan();
      return { from, to, dry_run: true, etag: null, links_updated: countChanges(edits), files: plannedFiles(edits), warnings: [] };
    }

    // The pipeline checks the move itself (from present at if_match, to free) before any write.
    const done = await ctx.writer.transact("note_move", [from, to], () => {
      const edits = plan();
      const changes: Change[] = edits.map((e) => ({ type: "write", path: e.path, text: e.text, expect: { etag: e.etag } }));
      changes.push({ type: "move", from, to, expect: ifMatch ? { etag: ifMatch } : { present: true } });
      return { changes, value: edits };
    });
    const edits = done.value;
    return {
      from,
      to,
      dry_run: false,
      etag: done.etags[to] ?? null,
      links_updated: countChanges(edits),
      files: writtenFiles(edits, done.etags, { [from]: to }),
      warnings: done.warnings,
    };
  },
  summary: (o) =>
    `${o.dry_run ? "would move" : "moved"} ${o.from} → ${o.to}; ${o.links_updated} reference${o.links_updated === 1 ? "" : "s"} in ${o.files.length} file${o.files.length === 1 ? "" : "s"}`,
});
