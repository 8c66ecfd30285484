import { readFileSync } from "node:fs";
import { Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import { etagOf } from "../core/hash.ts";
import { aliasesOf, frontmatterOf } from "../index/storage/json-columns.ts";
import { defineOp } from "../ops/define.ts";
import { CompactMeta, compactMeta, Nullable, PATH_MARK } from "../ops/schemas.ts";
import { parseChunkId } from "../search/related.ts";
import { statVaultFile } from "../vault/read.ts";
import { mimeType } from "./mime.ts";

export const chunkGet = defineOp({
  name: "chunk_get",
  errors: ["path_invalid", "not_found"],
  title: "Read one chunk",
  description: "One section of a note by chunk id.",
  scope: "vault:read",
  safe: true,
  input: Type.Object(
    { id: Type.String({ minLength: 3, maxLength: 1100, description: "Chunk id '<path>#<n>' from a search hit.", [PATH_MARK]: true }) },
    { additionalProperties: false },
  ),
  output: Type.Object({
    id: Type.String(),
    note_id: Type.String(),
    path: Type.String(),
    index: Type.Integer(),
    title: Type.String(),
    heading: Nullable(Type.String()),
    heading_path: Type.Array(Type.String()),
    start_line: Type.Integer(),
    end_line: Type.Integer(),
    content: Type.String(),
    content_type: Type.Union([Type.Literal("text/markdown"), Type.Literal("text/plain")], {
      description: "text/plain for a section of a PDF or DOCX (its extracted text, docs/documents.md).",
    }),
    size: Type.Integer(),
    meta: CompactMeta,
  }),
  run(ctx, input) {
    const ref = parseChunkId(input.id);
    if (!ref) throw new IndxError("validation_failed", "A chunk id looks like '<path>#<index>', e.g. 'Projects/Foo.md#2'.", { field: "id" });
    const path = ctx.vault.safePath(ref.path, "id");
    const row = ctx.index.chunks.get(path, ref.ord);
    if (!row) throw new IndxError("not_found", `No chunk ${ref.ord} in ${path}`, { id: input.id });
    const headingPath = row.headingPath;
    return {
      id: `${path}#${ref.ord}`,
      note_id: path,
      path,
      index: ref.ord,
      title: row.title,
      heading: headingPath.at(-1) ?? null,
      heading_path: headingPath,
      start_line: row.startLine,
      end_line: row.endLine,
      content: row.text,
      content_type: isMarkdown(path) ? ("text/markdown" as const) : ("text/plain" as const),
      size: new TextEncoder().encode(row.text).length,
      meta: compactMeta(frontmatterOf(row), aliasesOf(row)),
    };
  },
  summary: (o) => `${o.id}: ${o.heading ?? o.title} (lines ${o.start_line}-${o.end_line})`,
});

function isMarkdown(path: string): boolean {
  return /\.(md|markdown)$/i.test(path);
}

export const attachmentGet = defineOp({
  name: "attachment_get",
  errors: ["path_invalid", "not_found", "payload_too_large", "parse_failed"],
  title: "Attachment metadata or bytes",
  description: "An attachment's metadata, or its bytes (base64).",
  scope: "vault:read",
  safe: true,
  input: Type.Object(
    {
      path: Type.String({ minLength: 1, maxLength: 1024, description: "Vault path.", [PATH_MARK]: true }),
      download: Type.Optional(Type.Boolean({ default: false, description: "Return the bytes." })),
      allow_large: Type.Optional(Type.Boolean({ default: false, description: "Past retrieval.max_attachment_bytes." })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    path: Type.String(),
    size: Type.Integer(),
    mime: Type.String(),
    mtime: Type.String(),
    etag: Type.Optional(Type.String()),
    data_base64: Type.Optional(Type.String()),
  }),
  run(ctx, input) {
    const file = statVaultFile(ctx.vault, input.path);
    if (file.kind === "note") throw new IndxError("path_invalid", `${file.path} is a Markdown note; use note_read`, { reason: "wrong_kind", kind: file.kind });
    const meta = { path: file.path, size: file.size, mime: mimeType(file.path), mtime: file.mtime };
    if (!input.download) return meta;
    const limit = ctx.vault.config.int("retrieval.max_attachment_bytes");
    if (file.size > limit && !input.allow_large)
      throw new IndxError(
        "payload_too_large",
        `${file.path} is ${file.size} bytes, over the ${limit}-byte download limit; pass allow_large to download it anyway`,
        {
          path: file.path,
          size: file.size,
          limit,
        },
      );
    const bytes = readFileSync(ctx.vault.abs(file.path));
    return { ...meta, size: bytes.length, etag: etagOf(bytes), data_base64: bytes.toString("base64") };
  },
  summary: (o) => `${o.path} (${o.mime}, ${o.size} bytes${o.data_base64 ? ", downloaded" : ""})`,
});
