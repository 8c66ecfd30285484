import { type Static, Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import type { StoredDocument } from "../index/storage/queries/documents.ts";
import { defineOp } from "../ops/define.ts";
import { Nullable, VaultPathOf } from "../ops/schemas.ts";
import { statVaultFile } from "../vault/read.ts";
import { READ_MANY } from "./read-many-ops.ts";

const Section = Type.Object({
  index: Type.Integer({ description: "The page (PDF) or the section's place, 1-based (DOCX)." }),
  anchor: Nullable(
    Type.String({ description: "What a link appends after '#': 'page=3' for a PDF, the heading for a DOCX section; null before the first heading." }),
  ),
  heading_path: Type.Array(Type.String()),
  text: Type.String({ description: "The section's extracted text (plain text, not Markdown)." }),
});

const DocumentReadOutput = Type.Object({
  path: Type.String(),
  title: Type.String(),
  format: Type.Union([Type.Literal("pdf"), Type.Literal("docx")]),
  etag: Nullable(Type.String({ description: "The version of the file the text was extracted from (citations into it carry this etag)." })),
  unit: Type.Union([Type.Literal("page"), Type.Literal("section")]),
  total: Type.Integer({ description: "Pages of the PDF, or sections of the DOCX." }),
  sections: Type.Array(Section),
  truncated: Type.Optional(Type.Literal(true)),
  next_from: Type.Optional(
    Type.Integer({ description: "Where the next call starts to read on (`from`), when the budget or `to` stopped this one short of the end." }),
  ),
  budget_bytes: Type.Integer(),
  used_bytes: Type.Integer({ description: "UTF-8 bytes of the returned text." }),
  problem: Type.Optional(
    Type.Object(
      { reason: Type.String(), message: Type.String() },
      { description: "Why the text is missing or partial: encrypted, image_only (no OCR), malformed, too_large, timeout, memory, truncated." },
    ),
  ),
});
type DocumentReadOutput = Static<typeof DocumentReadOutput>;

export const documentRead = defineOp({
  name: "document_read",
  errors: ["path_invalid", "not_found"],
  title: "Read a PDF's or DOCX's text",
  description: "A PDF's text by page, or a DOCX's by heading section, whole sections within budget_bytes; next_from reads on.",
  scope: "vault:read",
  safe: true,
  input: Type.Object(
    {
      // A marked path: a folder grant checks it like any other (docs/permissions.md).
      path: VaultPathOf("The PDF or DOCX, e.g. 'Papers/Spec.pdf'."),
      from: Type.Optional(Type.Integer({ minimum: 1, description: "First page or section, 1-based." })),
      to: Type.Optional(Type.Integer({ minimum: 1 })),
      budget_bytes: Type.Optional(Type.Integer({ minimum: 1, maximum: READ_MANY.maxBudget, default: READ_MANY.defaultBudget })),
    },
    { additionalProperties: false },
  ),
  output: DocumentReadOutput,
  run(ctx, input) {
    const file = statVaultFile(ctx.vault, input.path);
    if (file.kind === "note") throw new IndxError("path_invalid", `${file.path} is a Markdown note; use note_read`, { reason: "wrong_kind", kind: file.kind });
    const doc = ctx.index.documents.get(file.path);
    if (!doc)
      throw new IndxError("not_found", `${file.path} has no indexed text: it is not a PDF or DOCX, or index.documents leaves its format out`, {
        path: file.path,
      });
    return readSections(doc, input.from ?? 1, input.to ?? null, input.budget_bytes ?? READ_MANY.defaultBudget);
  },
  summary: (o) =>
    `${o.path}: ${o.sections.length ? `${o.unit}s ${o.sections[0]?.index}–${o.sections.at(-1)?.index} of ${o.total}` : `no text${o.problem ? ` (${o.problem.message})` : ""}`}`,
});

const UTF8 = new TextEncoder();

function readSections(doc: StoredDocument, from: number, to: number | null, budget: number): DocumentReadOutput {
  if (to !== null && to < from) throw new IndxError("validation_failed", "`to` comes before `from`.", { field: "to" });
  const pdf = doc.format === "pdf";
  const sections = doc.text?.chunks ?? [];
  const total = pdf ? doc.pages : sections.length;
  const out: DocumentReadOutput = {
    path: doc.path,
    title: doc.title ?? doc.path.slice(doc.path.lastIndexOf("/") + 1),
    format: doc.format,
    etag: doc.etag,
    unit: pdf ? "page" : "section",
    total,
    sections: [],
    budget_bytes: budget,
    used_bytes: 0,
    ...(doc.problem && doc.message ? { problem: { reason: doc.problem, message: doc.message } } : {}),
  };
  // A PDF's chunk n - 1 is its page n (docs/documents.md); a DOCX's sections are numbered in order.
  const last = Math.min(to ?? Number.MAX_SAFE_INTEGER, sections.length);
  for (let index = from; index <= last; index++) {
    const s = sections[index - 1];
    if (!s) break;
    const bytes = UTF8.encode(s.text).length;
    if (out.used_bytes + bytes > budget) {
      if (out.sections.length === 0) {
        const text = cutToBytes(s.text, budget);
        out.sections.push(section(index, s.headingPath, text));
        out.used_bytes = UTF8.encode(text).length;
        out.truncated = true;
      }
      out.next_from = out.truncated ? index + 1 : index;
      return out;
    }
    out.sections.push(section(index, s.headingPath, s.text));
    out.used_bytes += bytes;
  }
  if (to !== null && to < Math.min(total, sections.length)) out.next_from = to + 1;
  return out;
}

function section(index: number, headingPath: string[], text: string): Static<typeof Section> {
  return { index, anchor: headingPath.at(-1) ?? null, heading_path: headingPath, text };
}

/** The longest prefix of `text` whose UTF-8 takes at most `bytes`, not cutting a character. */
function cutToBytes(text: string, bytes: number): string {
  const encoded = UTF8.encode(text).subarray(0, bytes);
  return new TextDecoder().decode(encoded).replace(/\uFFFD$/, "");
}
