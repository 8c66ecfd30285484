import type { Database } from "bun:sqlite";
import { decodeNoteText, type NoteText } from "../note-text.ts";

/** A PDF or DOCX as the index holds it (docs/documents.md). */
export interface StoredDocument {
  path: string;
  format: "pdf" | "docx";
  /** A PDF's page count; 0 for DOCX. */
  pages: number;
  /** Why the text is missing or partial, or null. */
  problem: string | null;
  message: string | null;
  /** The bytes the text was extracted from; null when the file was too large to read. */
  etag: string | null;
  title: string | null;
  /** Its sections (one per PDF page, per DOCX heading); null when it has no text. */
  text: NoteText | null;
}

/** The documents table, with each document's note row (title, sections). */
export class DocumentQueries {
  constructor(private readonly db: Database) {}

  get(path: string): StoredDocument | null {
    const row = this.db
      .query<Omit<StoredDocument, "text"> & { noteText: Uint8Array | null }, [string]>(
        `SELECT f.path, d.format, d.pages, d.problem, d.message, f.etag, n.title, n.text AS noteText
           FROM files f JOIN documents d ON d.file_id = f.id LEFT JOIN notes n ON n.file_id = f.id WHERE f.path = ?`,
      )
      .get(path);
    if (!row) return null;
    const { noteText, ...rest } = row;
    return { ...rest, text: noteText ? decodeNoteText(noteText) : null };
  }

  /** The documents whose text is missing or partial, and why, by path. */
  problems(): { path: string; problem: string; message: string }[] {
    return this.db
      .query<{ path: string; problem: string; message: string }, []>(
        `SELECT f.path, d.problem, coalesce(d.message, d.problem) AS message FROM documents d JOIN files f ON f.id = d.file_id
          WHERE d.problem IS NOT NULL ORDER BY f.path`,
      )
      .all();
  }

  /** The content hashes of every indexed document: what the extraction cache keeps. */
  etags(): Set<string> {
    return new Set(
      this.db
        .query<{ etag: string }, []>("SELECT f.etag FROM files f JOIN documents d ON d.file_id = f.id WHERE f.etag IS NOT NULL")
        .all()
        .map((r) => r.etag),
    );
  }
}
