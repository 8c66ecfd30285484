import { Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import { wallTimeAt } from "../dates/calendar.ts";
import { planHeadingRename } from "../links/rewrite.ts";
import { parseFrontmatterYaml, splitFrontmatter } from "../markdown/frontmatter.ts";
import type { OpContext } from "../ops/context.ts";
import { defineOp } from "../ops/define.ts";
import { INPUT_LIMITS, PATH_MARK, VaultPath, Warning } from "../ops/schemas.ts";
import { applyPatches, type PatchResult } from "../patch/engine.ts";
import { type PatchOp, PatchOpSchema } from "../patch/schema.ts";
import { renderTemplate } from "../templates/render.ts";
import { findTemplate, readTemplateSettings } from "../templates/settings.ts";
import { fileKind } from "../vault/scan.ts";
import { notUtf8 } from "../writes/encoding.ts";
import { assertVersion, type Change, type Expect, type FileState, type WriteIO } from "../writes/pipeline.ts";
import { DryRun, IdempotencyKey, IfMatch, IfNotExists, normalizeEtag, WrittenNote, writtenNote } from "../writes/schemas.ts";

/** A note path the write may create: safe, inside the vault, and a Markdown file. */
export function notePath(ctx: OpContext, input: unknown): string {
  const path = ctx.vault.safePath(input);
  if (fileKind(path) !== "note") throw new IndxError("path_invalid", `${path} is not a Markdown note path (notes end in .md)`, { reason: "wrong_kind" });
  return path;
}

export function assertWritableText(ctx: OpContext, path: string, text: string): void {
  if (text.includes("\u0000")) throw new IndxError("validation_failed", "Note text cannot contain NUL bytes.", { path, reason: "binary" });
  const limit = ctx.vault.config.int("index.max_note_bytes");
  const size = Buffer.byteLength(text);
  if (size > limit)
    throw new IndxError("payload_too_large", `The note would be ${size} bytes, over the ${limit}-byte limit (index.max_note_bytes).`, {
      path,
      size,
      limit,
    });
}

/**
 * Frontmatter that parses but has no plain-data form (an alias loop, nesting past the limit) is
 * refused before anything is written; ordinary invalid YAML is written and reported as
 * frontmatter_error, as Obsidian keeps it too. A block the write leaves as it was is not checked,
 * so body edits of such a note still work (docs/decisions.md).
 */
export function assertStorableFrontmatter(path: string, text: string, previous: string | null): void {
  const fm = splitFrontmatter(text);
  if (fm === null || (previous !== null && splitFrontmatter(previous)?.yaml === fm.yaml)) return;
  const { unusable, error } = parseFrontmatterYaml(fm.yaml, fm.yamlLine);
  if (unusable) throw new IndxError("validation_failed", `Refusing to write: ${error}.`, { path, reason: `frontmatter_${unusable}` });
}

/** The version of a file that exists; a missing one is not_found, as requireText says. */
function etagOf(state: FileState): string {
  if (state.etag === null) throw new IndxError("not_found", `No note at ${state.path}`, { path: state.path });
  return state.etag;
}

export function requireText(state: FileState): string {
  if (!state.exists) throw new IndxError("not_found", `No note at ${state.path}`, { path: state.path });
  if (state.content === "not_utf8") throw notUtf8(state.path);
  if (state.text === null) throw new IndxError("parse_failed", `${state.path} holds binary data, not Markdown text`, { path: state.path, reason: "binary" });
  return state.text;
}

/** The named template, its variables filled in for the note at `path`, followed by `body`. */
function fromTemplate(ctx: OpContext, path: string, name: string, body: string): string {
  const settings = readTemplateSettings(ctx.vault.root);
  const template = findTemplate(ctx.vault, name, settings.folder);
  if (!template)
    throw new IndxError("not_found", `No template ${name}${settings.folder ? ` (looked in ${settings.folder}/ too)` : ""}.`, { field: "template" });
  const title = path.slice(path.lastIndexOf("/") + 1).replace(/\.md$/i, "");
  const text = renderTemplate(template.text, { title, date: wallTimeAt(Date.now()), dateFormat: settings.dateFormat, timeFormat: settings.timeFormat });
  if (body === "") return text;
  return text === "" || text.endsWith("\n") ? text + body : `${text}\n${body}`;
}

/**
 * note_patch's planning of one note: the ops applied to its text in memory, and a changed text
 * checked as every note write is (size, NUL bytes, storable frontmatter). Pure: the caller writes.
 */
export function planNotePatch(ctx: OpContext, path: string, original: string, ops: readonly PatchOp[]): PatchResult {
  const result = applyPatches(original, ops);
  if (result.changed) {
    assertWritableText(ctx, path, result.text);
    assertStorableFrontmatter(path, result.text, original);
  }
  return result;
}

export const noteWrite = defineOp({
  name: "note_write",
  errors: [
    "path_invalid",
    "not_found",
    "patch_target_not_found",
    "encoding_unsupported",
    "idempotency_key_reused",
    "already_exists",
    "etag_mismatch",
    "payload_too_large",
  ],
  title: "Create or replace a note",
  description: "Create or replace a whole note (note_patch changes part).",
  scope: "vault:write",
  destructive: true,
  dryRunNeedsRead: true,
  safe: false,
  input: Type.Object(
    {
      path: VaultPath,
      body: Type.String({ maxLength: INPUT_LIMITS.noteChars, description: "Markdown after the frontmatter." }),
      frontmatter: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), {
          maxProperties: INPUT_LIMITS.properties,
          description: "Frontmatter properties.",
        }),
      ),
      template: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: INPUT_LIMITS.pathChars,
          description: "Template to start from.",
          // Read, not written: a folder grant must let the caller read it (docs/permissions.md).
          [PATH_MARK]: "read",
        }),
      ),
      if_match: Type.Optional(IfMatch),
      if_not_exists: Type.Optional(IfNotExists),
      dry_run: Type.Optional(DryRun),
      idempotency_key: Type.Optional(IdempotencyKey),
    },
    { additionalProperties: false },
  ),
  output: WrittenNote,
  async run(ctx, input) {
    const path = notePath(ctx, input.path);
    const ifMatch = normalizeEtag(input.if_match);
    if (ifMatch && input.if_not_exists) throw new IndxError("validation_failed", "Use if_match (replace a version) or if_not_exists (create), not both.");
    let text = input.template === undefined ? input.body : fromTemplate(ctx, path, input.template, input.body);
    if (input.frontmatter && Object.keys(input.frontmatter).length > 0) {
      // A template's own frontmatter is merged with these properties, as Obsidian merges them.
      if (/^---\r?\n/.test(input.body))
        throw new IndxError("validation_failed", "Give the frontmatter either in `frontmatter` or at the top of `body`, not both.");
      const ops: PatchOp[] = Object.entries(input.frontmatter).map(([key, value]) => ({ op: "set_frontmatter", key, value }));
      text = applyPatches(text, ops).text;
    }
    assertWritableText(ctx, path, text);
    assertStorableFrontmatter(path, text, null);
    const expect: Expect = input.if_not_exists ? { absent: true } : ifMatch ? { etag: ifMatch } : { anything: true };
    const plan = (io: WriteIO) => {
      const before = io.read(path);
      if (before.content === "binary" && !ifMatch)
        throw new IndxError("path_invalid", `${path} holds binary data; refusing to overwrite it as a note`, { path, reason: "binary" });
      const unchanged = before.exists && before.text === text && !input.if_not_exists;
      const changes: Change[] = unchanged ? [] : [{ type: "write", path, text, expect }];
      if (unchanged) assertVersion(before, ifMatch);
      return { changes, value: { created: !before.exists, changed: !unchanged, etag: before.etag } };
    };
    if (input.dry_run) {
      const preview = ctx.writer.preview(plan);
      const { created, changed, etag } = preview.value;
      const version = preview.etags[path] ?? etag;
      if (version === null) throw new IndxError("internal", `The planned write leaves no version of ${path}.`, { path });
      return writtenNote(path, text, version, { created, changed, planned: preview.files });
    }
    const done = await ctx.writer.transact("note_write", [path], plan);
    const etag = done.etags[path] ?? done.value.etag;
    if (etag === null) throw new IndxError("internal", `The write left no version of ${path}.`, { path });
    return writtenNote(path, text, etag, { created: done.value.created, changed: done.value.changed, warnings: done.warnings });
  },
  summary: (o) => {
    const [done, planned] = o.created ? ["created", "would create"] : o.changed ? ["replaced", "would replace"] : ["unchanged", "would leave unchanged"];
    return `${o.dry_run ? planned : done} ${o.path} (etag ${o.etag})`;
  },
});

export const notePatch = defineOp({
  name: "note_patch",
  errors: ["path_invalid", "not_found", "patch_target_not_found", "encoding_unsupported", "idempotency_key_reused", "etag_mismatch", "parse_failed"],
  title: "Edit a note with structured ops",
  description: "Edit part of a note: properties, body, sections by heading, blocks by ^id. Other bytes stay.",
  scope: "vault:write",
  destructive: true,
  dryRunNeedsRead: true,
  safe: false,
  input: Type.Object(
    {
      path: VaultPath,
      ops: Type.Array(PatchOpSchema, { minItems: 1, maxItems: 100, description: "In order; all or nothing." }),
      if_match: Type.Optional(IfMatch),
      dry_run: Type.Optional(DryRun),
      idempotency_key: Type.Optional(IdempotencyKey),
    },
    { additionalProperties: false },
  ),
  output: WrittenNote,
  async run(ctx, input) {
    const path = notePath(ctx, input.path);
    const ifMatch = normalizeEtag(input.if_match);
    if (input.ops.filter((op) => op.op === "rename_heading").length > 1)
      throw new IndxError("validation_failed", "Rename one heading per note_patch call: each rename rewrites links across the vault.", {
        reason: "multiple_renames",
      });
    const plan = (io: WriteIO) => {
      const before = io.read(path);
      assertVersion(before, ifMatch);
      const original = requireText(before);
      const result = planNotePatch(ctx, path, original, input.ops);
      if (!result.changed) return { changes: [], value: { text: original, etag: etagOf(before), changed: false } };
      // A renamed heading carries its links along ([[Note#Old]] → [[Note#New]]), here and elsewhere.
      let text = result.text;
      const others: Change[] = [];
      for (const r of result.renamedHeadings) {
        for (const edit of planHeadingRename(ctx.vault, ctx.index, path, r.from, r.to, text).edits) {
          if (edit.path === path) text = edit.text;
          else others.push({ type: "write", path: edit.path, text: edit.text, expect: { etag: edit.etag } });
        }
      }
      const changes: Change[] = [{ type: "write", path, text, expect: { etag: etagOf(before) } }, ...others];
      return { changes, value: { text, etag: etagOf(before), changed: true } };
    };
    if (input.dry_run) {
      const preview = ctx.writer.preview(plan);
      const { text, etag, changed } = preview.value;
      return writtenNote(path, text, preview.etags[path] ?? etag, { created: false, changed, planned: preview.files });
    }
    const done = await ctx.writer.transact("note_patch", [path], plan);
    const etag = done.etags[path] ?? done.value.etag;
    return writtenNote(path, done.value.text, etag, { created: false, changed: done.value.changed, warnings: done.warnings });
  },
  summary: (o, i) =>
    `${o.dry_run ? (o.changed ? "would patch" : "would leave unchanged") : o.changed ? "patched" : "unchanged"} ${o.path} with ${i.ops.length} op${i.ops.length === 1 ? "" : "s"} (etag ${o.etag})`,
});

export const noteDelete = defineOp({
  name: "note_delete",
  errors: ["path_invalid", "not_found", "patch_target_not_found", "encoding_unsupported", "idempotency_key_reused", "etag_mismatch"],
  title: "Delete a note",
  description: "Delete a file (to the vault's trash).",
  scope: "vault:write",
  destructive: true,
  safe: false,
  input: Type.Object({ path: VaultPath, if_match: Type.Optional(IfMatch), idempotency_key: Type.Optional(IdempotencyKey) }, { additionalProperties: false }),
  output: Type.Object({
    path: Type.String(),
    deleted: Type.Boolean(),
    trashed: Type.Boolean({ description: "True when the file went to the vault's trash rather than being removed." }),
    warnings: Type.Array(Warning),
  }),
  async run(ctx, input) {
    const path = ctx.vault.safePath(input.path);
    const ifMatch = normalizeEtag(input.if_match);
    const done = await ctx.writer.transact("note_delete", [path], (io) => {
      const before = io.read(path);
      assertVersion(before, ifMatch);
      if (!before.exists) throw new IndxError("not_found", `No file at ${path}`, { path });
      return { changes: [{ type: "delete", path, expect: ifMatch ? { etag: ifMatch } : { present: true } }], value: null };
    });
    return { path, deleted: true, trashed: done.trashed, warnings: done.warnings };
  },
  summary: (o) => `deleted ${o.path}${o.trashed ? " (moved to the trash)" : ""}`,
});
