import { readFileSync } from "node:fs";
import { join } from "node:path";
import { propertyRow } from "../../bases/properties.ts";
import { looksBinary } from "../../core/binary.ts";
import { cjkGrams } from "../../core/cjk.ts";
import { etagOf } from "../../core/hash.ts";
import type { WarningCode } from "../../core/warnings.ts";
import { parseNote } from "../../markdown/parse.ts";
import type { ParsedNote } from "../../markdown/types.ts";
import { linkKey } from "../../vault/link-resolver.ts";
import type { ScannedFile } from "../../vault/scan.ts";
import { searchDocument, searchHeadings } from "../lexical/search-document.ts";
import { contentHashKey } from "../storage/chunk-keys.ts";
import { noteRecord } from "../storage/note-text.ts";
import type {
  BlockValues,
  ChunkValues,
  DocumentValues,
  FtsValues,
  LinkValues,
  NoteRows,
  NoteStatus,
  NoteValues,
  PropertyValues,
  TagValues,
} from "../storage/rows.ts";
import { storedLinkForms } from "../storage/schema.ts";
import { type DocumentReader, type DocumentSettings, extractedFormat, readsDocument } from "./document-rows.ts";

export interface IndexWarning {
  code: Extract<
    WarningCode,
    "frontmatter_invalid" | "note_too_large" | "binary_content" | "symlink_escape" | "unreadable" | "document_not_extracted" | "document_truncated"
  >;
  path: string;
  message: string;
}

/** What an index pass makes of one file on disk. */
export interface FileRows {
  /** xxHash64 of the bytes; null when they were not read (attachments, notes over the size limit). */
  etag: string | null;
  /** The note's rows; null for other kinds of file, and for bytes equal to the stored ones (`storedEtag`). */
  note: NoteRows | null;
  /** A PDF's or DOCX's documents row: its pages and why its text is missing or partial. */
  document?: DocumentValues;
  warning?: IndexWarning;
}

export interface FileRowsOptions {
  maxNoteBytes: number;
  /** The etag indexed for this file: equal bytes are not parsed again. */
  storedEtag?: string | null;
  /** The file's bytes when they were read ahead (rows-worker.ts); otherwise, or null when that read failed, read here. */
  bytes?: Uint8Array | null;
  /** Extracts the text of PDFs and DOCX files (document-rows.ts); none: they are plain attachments. */
  documents?: DocumentReader | null;
}

/**
 * Whether fileRows() reads the whole file: not for attachments (but the documents whose text is
 * extracted, within their size limit), nor for notes over the size limit.
 */
export function readsWhole(f: ScannedFile, maxNoteBytes: number, documents?: DocumentSettings | null): boolean {
  if (f.kind === "attachment") return readsDocument(f, documents);
  return !(f.kind === "note" && f.size > maxNoteBytes);
}

/**
 * Reads one file and computes its rows: nothing here touches the index, so this work can run on
 * another thread than the writer's (rows-pipeline.ts). Null when the file could not be read.
 */
export function fileRows(root: string, f: ScannedFile, opts: FileRowsOptions): FileRows | null {
  try {
    if (f.kind === "attachment") return attachmentRows(root, f, opts);
    if (!readsWhole(f, opts.maxNoteBytes)) {
      // Listed and readable, but never read whole at index time: no etag, no parse.
      return {
        etag: null,
        note: noteRows(baseTitle(f.path), "too_large", null),
        warning: { code: "note_too_large", path: f.path, message: `larger than index.max_note_bytes (${opts.maxNoteBytes}); not searchable` },
      };
    }
    const bytes = opts.bytes ?? readFileSync(join(root, f.path));
    const etag = etagOf(bytes);
    if (f.kind !== "note" || etag === opts.storedEtag) return { etag, note: null };
    if (looksBinary(bytes)) {
      return {
        etag,
        note: noteRows(baseTitle(f.path), "binary", null),
        warning: { code: "binary_content", path: f.path, message: "binary content in a Markdown file; not searchable" },
      };
    }
    const parsed = parseNote(new TextDecoder().decode(bytes));
    const fmTitle = parsed.frontmatter?.title;
    const title = typeof fmTitle === "string" && fmTitle.trim() ? fmTitle.trim() : baseTitle(f.path);
    return {
      etag,
      note: noteRows(title, "ok", parsed),
      warning: parsed.frontmatterError ? { code: "frontmatter_invalid", path: f.path, message: parsed.frontmatterError } : undefined,
    };
  } catch {
    return null;
  }
}

/** An attachment's rows: none, but for a PDF or DOCX whose text is extracted (document-rows.ts). */
function attachmentRows(root: string, f: ScannedFile, opts: FileRowsOptions): FileRows {
  const reader = opts.documents;
  const format = extractedFormat(f, reader?.settings);
  if (!reader || !format) return { etag: null, note: null };
  if (!readsDocument(f, reader.settings)) return reader.tooLarge(f, format);
  const bytes = opts.bytes ?? readFileSync(join(root, f.path));
  const etag = etagOf(bytes);
  if (etag === opts.storedEtag) return { etag, note: null };
  return reader.rows(f, format, bytes, etag);
}

export function baseTitle(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return name.replace(/\.(md|markdown)$/i, "");
}

function noteRows(title: string, status: NoteStatus, p: ParsedNote | null): NoteRows {
  const aliases = p?.aliases ?? [];
  const tags = p?.tags ?? [];
  const chunks = p?.chunks ?? [];
  const text = p
    ? noteRecord({
        outline: p.headings.map((h) => ({ level: h.level, text: h.text })),
        chunks: chunks.map((c) => ({ headingPath: c.headingPath, text: c.text, startLine: c.startLine })),
      })
    : null;
  const note: NoteValues = [
    title,
    JSON.stringify(aliases),
    JSON.stringify(tags),
    p?.frontmatter ? JSON.stringify(p.frontmatter) : null,
    p?.frontmatterError ?? null,
    status,
    p?.tasks.length ?? 0,
    text,
  ];
  if (!p) return { note, links: [], tags: [], properties: [], blocks: [], chunks: [], fts: null, cjk: null };

  const links = p.links.map((l, ord): LinkValues => {
    const stored = storedLinkForms(l, linkKey(l.linkpath));
    return [ord, l.embed ? 1 : 0, stored.syntax, l.linkpath, l.subpath, l.display, stored.raw, l.line, l.offset, l.key ?? null, l.rel ?? null, stored.key];
  });
  const uses = new Map<string, number>();
  for (const t of p.tagOccurrences) uses.set(t.tag, (uses.get(t.tag) ?? 0) + 1);
  const properties = Object.entries(p.frontmatter ?? {}).map(([key, value], ord): PropertyValues => {
    const r = propertyRow(key, value);
    return [ord, r.keyLower, r.key, r.num, r.text, r.day, r.link, r.bool];
  });
  let fts: FtsValues | null = null;
  // A note with no text (only properties, as many templates and reference notes) is still found by its name, aliases and tags.
  if (status === "ok") {
    const headings = searchHeadings(
      title,
      p.headings.map((h) => h.text),
    );
    const doc = searchDocument({ title, aliases, tags, headings, texts: chunks.map((c) => c.text) });
    fts = [doc.title, doc.aliases, doc.tags, doc.headings, doc.body];
  }
  const grams = chunks
    .map((c) => cjkGrams(c.text))
    .join(" ")
    .trim();
  return {
    note,
    links,
    tags: [...uses].map(([tag, n]): TagValues => [tag, tag.toLowerCase(), n]),
    properties,
    blocks: p.blocks.map((b): BlockValues => [b.id.toLowerCase(), b.id, b.line]),
    chunks: chunks.map((c): ChunkValues => [c.index, c.startLine, c.endLine, contentHashKey(`${JSON.stringify(c.headingPath)}\n${c.text}`)]),
    fts,
    cjk: grams || null,
  };
}
