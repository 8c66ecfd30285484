import { Type } from "@sinclair/typebox";
import { INDEX_NEEDS_BUILD, IndxError } from "../core/errors.ts";
import { newLinkText } from "../links/link-text.ts";
import { ATTACHMENT_EXTENSIONS, extensionOf, mimeType } from "../notes/mime.ts";
import type { OpContext } from "../ops/context.ts";
import { defineOp } from "../ops/define.ts";
import { INPUT_LIMITS, PATH_MARK, Warning } from "../ops/schemas.ts";
import { LinkResolver } from "../vault/link-resolver.ts";
import { readObsidianApp } from "../vault/obsidian-app.ts";
import { fileKind, scanVault } from "../vault/scan.ts";
import type { Change } from "../writes/pipeline.ts";
import { IdempotencyKey } from "../writes/schemas.ts";
import { decodeBase64 } from "./base64.ts";
import { attachmentFolder, availableNames, nameProblem } from "./folder.ts";

/** How many numbered names (`x 1.png` … ) are tried before giving up: far beyond any real folder. */
const MAX_SUFFIX = 10_000;

function assertName(name: string): void {
  const problem = nameProblem(name);
  if (problem) throw new IndxError("validation_failed", `The attachment's name ${problem.message}.`, { field: "name", reason: problem.reason });
  if (!ATTACHMENT_EXTENSIONS.includes(extensionOf(name)))
    throw new IndxError("validation_failed", `${name} is not an attachment type indx writes (notes go through note_write, canvases through canvas_write).`, {
      field: "name",
      reason: "extension",
      allowed: ATTACHMENT_EXTENSIONS,
    });
}

/** Every vault path, for the link's shortest form: from the index, or from the disk when there is none yet. */
function vaultPaths(ctx: OpContext): string[] {
  try {
    return ctx.index.files.paths();
  } catch (err) {
    if (err instanceof IndxError && INDEX_NEEDS_BUILD.has(err.code)) return scanVault(ctx.vault.root, ctx.vault.exclusions).files.map((f) => f.path);
    throw err;
  }
}

export const attachmentWrite = defineOp({
  name: "attachment_write",
  // path_invalid: a `note` that is not a Markdown note (a chunk id, a canvas), or a path the vault excludes.
  errors: ["not_found", "patch_target_not_found", "encoding_unsupported", "idempotency_key_reused", "already_exists", "payload_too_large", "path_invalid"],
  title: "Upload an attachment",
  description: "Save a file where Obsidian puts attachments; returns the embed to paste.",
  scope: "vault:write",
  safe: false,
  input: Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 255, description: "File name, e.g. 'diagram.png'." }),
      data_base64: Type.String({ maxLength: INPUT_LIMITS.attachmentBase64Chars, description: "The bytes, base64." }),
      note: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: INPUT_LIMITS.pathChars,
          description: "Note it is for.",
          // Read, not written (it places the attachment): a folder grant must let the caller read it.
          [PATH_MARK]: "read",
        }),
      ),
      on_conflict: Type.Optional(
        Type.Union([Type.Literal("rename"), Type.Literal("fail")], { default: "rename", description: "A taken name: rename (' 1') or fail." }),
      ),
      idempotency_key: Type.Optional(IdempotencyKey),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    path: Type.String(),
    etag: Type.String(),
    size: Type.Integer(),
    mime: Type.String(),
    created: Type.Boolean(),
    renamed: Type.Boolean({ description: "True when the name was taken and a numbered one was used." }),
    embed: Type.String({ description: "The embed to paste into the note, in the vault's link format, e.g. ![[diagram.png]]." }),
    warnings: Type.Array(Warning),
  }),
  async run(ctx, input) {
    assertName(input.name);
    const note = input.note === undefined ? null : ctx.vault.safePath(input.note, "note");
    if (note && fileKind(note) !== "note") {
      // A search hit's chunk id (`Note.md#3`) names a passage: the attachment goes beside the note.
      const chunk = /^(.+\.md)#\d+$/i.exec(note)?.[1];
      const hint = chunk ? `: ${note} is a passage's id; pass the note's path, ${chunk}` : "";
      throw new IndxError("path_invalid", `${note} is not a Markdown note${hint}`, { field: "note", reason: "wrong_kind" });
    }
    const bytes = decodeBase64(input.data_base64, ctx.vault.config.int("writes.max_attachment_bytes"));
    const app = readObsidianApp(ctx.vault.root);
    const folder = attachmentFolder(app.attachmentFolderPath, note);
    const first = ctx.vault.safePath(folder ? `${folder}/${input.name}` : input.name, "name");
    const paths = vaultPaths(ctx);

    const done = await ctx.writer.transact("attachment_write", [first], (io) => {
      let path = first;
      let tries = 0;
      for (const name of availableNames(input.name)) {
        path = ctx.vault.safePath(folder ? `${folder}/${name}` : name, "name");
        if (!io.read(path).exists) break;
        if (input.on_conflict === "fail") throw new IndxError("already_exists", `${path} already exists`, { path });
        if (++tries > MAX_SUFFIX) throw new IndxError("already_exists", `No free name for ${input.name} in ${folder || "the vault root"}`, { path: first });
      }
      const resolver = new LinkResolver(paths.filter((p) => p !== path).concat(path));
      // Without a note the embed is written as if from the vault root.
      const embed = newLinkText(path, note ?? "", app, resolver, { embed: true });
      const changes: Change[] = [{ type: "write_bytes", path, bytes, expect: { absent: true } }];
      return { changes, value: { path, embed } };
    });
    const { path, embed } = done.value;
    const etag = done.etags[path];
    if (etag === undefined) throw new IndxError("internal", `The write of ${path} returned no etag`);
    return {
      path,
      etag,
      size: bytes.length,
      mime: mimeType(path),
      created: true,
      renamed: path !== first,
      embed,
      warnings: done.warnings,
    };
  },
  summary: (o) => `saved ${o.path} (${o.size} bytes${o.renamed ? ", renamed" : ""}); embed with ${o.embed}`,
});
