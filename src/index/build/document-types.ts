/**
 * What the text extraction of a PDF or DOCX makes (docs/documents.md): the document's sections,
 * one per PDF page or per DOCX heading, or the reason it has none. Plain data: it crosses from
 * the extraction worker (document-worker.ts) and is cached by content hash (document-extract.ts).
 */
export type DocumentFormat = "pdf" | "docx";

export const DOCUMENT_FORMATS: readonly DocumentFormat[] = ["pdf", "docx"];

/** Why a document has no searchable text, or why only part of it is searchable. */
export type DocumentProblem = "encrypted" | "image_only" | "malformed" | "too_large" | "timeout" | "memory" | "truncated";

export interface DocumentSection {
  /** The heading path (DOCX) or `["page=N"]` (PDF): what a link appends after '#'. */
  headingPath: string[];
  text: string;
  /** The page (PDF) or the paragraph the section starts at (DOCX), 1-based. */
  at: number;
}

export interface ExtractedDocument {
  format: DocumentFormat;
  title: string | null;
  /** Every heading in order (DOCX); empty for a PDF, whose anchors are its pages. */
  outline: { level: number; text: string }[];
  sections: DocumentSection[];
  /** A PDF's page count (all of them, also past the extraction limit); 0 for DOCX. */
  pages: number;
  /** Null, or why the text is missing (no sections) or partial (`truncated`). */
  problem: DocumentProblem | null;
  /** The reason in words, for the warning. */
  message: string | null;
}

/** Bounds on one file's extraction (docs/documents.md, Limits). */
export interface ExtractLimits {
  maxPages: number;
  /** What a DOCX may decompress to, all parts together; the text kept from any document. */
  maxTextBytes: number;
  timeoutMs: number;
  /** The extraction worker's JavaScript heap, checked between pages. */
  maxHeapBytes: number;
}

export function documentFormat(path: string): DocumentFormat | null {
  const dot = path.lastIndexOf(".");
  const ext = dot < 0 ? "" : path.slice(dot + 1).toLowerCase();
  return ext === "pdf" || ext === "docx" ? ext : null;
}

export function failed(format: DocumentFormat, problem: DocumentProblem, message: string, pages = 0): ExtractedDocument {
  return { format, title: null, outline: [], sections: [], pages, problem, message };
}
