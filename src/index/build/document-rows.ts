import { join } from "node:path";
import { cjkGrams } from "../../core/cjk.ts";
import type { ScannedFile } from "../../vault/scan.ts";
import type { Vault } from "../../vault/vault.ts";
import { searchDocument, searchHeadings } from "../lexical/search-document.ts";
import { contentHashKey } from "../storage/chunk-keys.ts";
import { noteRecord } from "../storage/note-text.ts";
import type { DocumentValues, NoteRows } from "../storage/rows.ts";
import { DocumentExtractor, ExtractionCache } from "./document-extract.ts";
import { DOCUMENT_FORMATS, type DocumentFormat, documentFormat, type ExtractedDocument, type ExtractLimits } from "./document-types.ts";
import type { FileRows } from "./file-rows.ts";

/** Which documents an index pass extracts, and its bounds (docs/documents.md): plain data, so a rows worker gets it too. */
export interface DocumentSettings {
  formats: DocumentFormat[];
  /** Larger files are listed as attachments, not read. */
  maxBytes: number;
  limits: ExtractLimits;
  /** The extraction cache's folder (by content hash). */
  cacheDir: string;
}

/** A document's extraction runs at most this long (docs/documents.md, Limits). */
const TIMEOUT_MS = 30_000;
/** What a DOCX may decompress to, and the text kept of any document. */
const MAX_TEXT_BYTES = 64 * 1024 * 1024;
/** The extraction worker's heap, checked between pages. */
const MAX_HEAP_BYTES = 768 * 1024 * 1024;

export function documentSettings(vault: Vault): DocumentSettings | null {
  const formats = vault.config.list("index.documents").flatMap((f) => {
    const format = f.trim().toLowerCase().replace(/^\./, "");
    return DOCUMENT_FORMATS.filter((d) => d === format);
  });
  if (formats.length === 0) return null;
  return {
    formats,
    maxBytes: vault.config.int("index.max_document_bytes"),
    limits: { maxPages: vault.config.int("index.max_document_pages"), maxTextBytes: MAX_TEXT_BYTES, timeoutMs: TIMEOUT_MS, maxHeapBytes: MAX_HEAP_BYTES },
    cacheDir: join(vault.dataDir, "documents"),
  };
}

/** The document format an index pass extracts this attachment as, or null. */
export function extractedFormat(f: ScannedFile, s: DocumentSettings | null | undefined): DocumentFormat | null {
  if (!s || f.kind !== "attachment") return null;
  const format = documentFormat(f.path);
  return format && s.formats.includes(format) ? format : null;
}

/** Whether an index pass reads this document's bytes: an extracted format, within the size limit. */
export function readsDocument(f: ScannedFile, s: DocumentSettings | null | undefined): boolean {
  return extractedFormat(f, s) !== null && f.size <= (s?.maxBytes ?? 0);
}

/**
 * Turns a document's bytes into its rows, extracting on a worker of its own (document-extract.ts)
 * unless the cache has the text of these bytes already. One per thread that computes rows.
 */
export class DocumentReader {
  private extractor: DocumentExtractor | null = null;
  private readonly cache: ExtractionCache;

  constructor(readonly settings: DocumentSettings) {
    this.cache = new ExtractionCache(settings.cacheDir);
  }

  /** The rows of a document too large to read. */
  tooLarge(f: ScannedFile, format: DocumentFormat): FileRows {
    const message = `larger than index.max_document_bytes (${this.settings.maxBytes}); listed as an attachment, its text not searchable`;
    return { etag: null, note: null, document: [format, 0, "too_large", message], warning: { code: "document_not_extracted", path: f.path, message } };
  }

  rows(f: ScannedFile, format: DocumentFormat, bytes: Uint8Array, etag: string): FileRows {
    let doc = this.cache.get(etag);
    if (!doc) {
      this.extractor ??= new DocumentExtractor(this.settings.limits);
      doc = this.extractor.extract(bytes, format);
      this.cache.put(etag, doc);
    }
    const document: DocumentValues = [format, doc.pages, doc.problem, doc.message];
    const warning = doc.message
      ? { code: doc.problem === "truncated" ? ("document_truncated" as const) : ("document_not_extracted" as const), path: f.path, message: doc.message }
      : undefined;
    const note = doc.sections.length ? documentNoteRows(doc, fileTitle(f.path)) : null;
    return { etag, note, document, ...(warning ? { warning } : {}) };
  }

  close(): void {
    this.extractor?.close();
    this.extractor = null;
  }
}

/** A document's file name less its extension: its title when its metadata has none. */
function fileTitle(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

/**
 * A document's sections as a note's rows: its record, chunks (one per PDF page, the chunk's lines
 * are the page) and full-text row, so search, chunk_get, related, activate_context and every AI
 * operation read it as they read a note (docs/documents.md).
 */
function documentNoteRows(doc: ExtractedDocument, fallbackTitle: string): NoteRows {
  const title = doc.title ?? fallbackTitle;
  const chunks = doc.sections.map((s) => ({ headingPath: s.headingPath, text: s.text, startLine: s.at }));
  const record = noteRecord({ outline: doc.outline, chunks });
  const headings = searchHeadings(
    title,
    doc.outline.map((h) => h.text),
  );
  const search = searchDocument({ title, aliases: [], tags: [], headings, texts: chunks.map((c) => c.text) });
  const grams = chunks
    .map((c) => cjkGrams(c.text))
    .join(" ")
    .trim();
  return {
    note: [title, "[]", "[]", null, null, "ok", 0, record],
    links: [],
    tags: [],
    properties: [],
    blocks: [],
    chunks: doc.sections.map((s, ord) => {
      const end = doc.format === "pdf" ? s.at : s.at + Math.max(0, s.text.split("\n").length - 1);
      return [ord, s.at, end, contentHashKey(`${JSON.stringify(s.headingPath)}\n${s.text}`)];
    }),
    fts: [search.title, search.aliases, search.tags, search.headings, search.body],
    cjk: grams || null,
  };
}
