import type { Database } from "bun:sqlite";
import { keysForFile, type LinkResolver } from "../../vault/link-resolver.ts";
import type { FileKind } from "../../vault/scan.ts";
import { storedNoteRecord } from "./note-text.ts";
import type { DocumentValues, NoteRows } from "./rows.ts";
import { LINK_KEY_SQL, storedLinkDst } from "./schema.ts";

export interface FileRecord {
  path: string;
  kind: FileKind;
  size: number;
  mtimeMs: number;
  etag: string | null;
}

/**
 * Prepared statements that write one file's rows. Callers wrap calls in a transaction;
 * every write replaces all rows derived from the file, so a re-index is idempotent.
 */
export class IndexWriter {
  private readonly s: Statements;

  constructor(db: Database) {
    this.s = statements(db);
  }

  /** Only size/mtime changed (the bytes hash the same): keep every derived row. */
  touch(id: number, size: number, mtimeMs: number): void {
    this.s.touchFile.run(size, mtimeMs, id);
  }

  /**
   * Inserts or replaces a file and everything derived from it; its links resolve against
   * `resolver` (the files the index holds once the pass ends). Returns the file id.
   */
  upsert(file: FileRecord, note: NoteRows | null, resolver: LinkResolver, document: DocumentValues | null = null): number {
    const existing = this.s.fileId.get(file.path) as { id: number } | null;
    let id: number;
    if (existing) {
      id = existing.id;
      this.clearDerived(id);
      this.s.updateFile.run(file.kind, file.size, file.mtimeMs, file.etag, id);
    } else {
      // run() + lastInsertRowid: RETURNING costs more than the insert itself in bun:sqlite.
      id = Number(this.s.insertFile.run(file.path, file.kind, file.size, file.mtimeMs, file.etag).lastInsertRowid);
    }
    if (note) this.writeNote(id, file.path, note, resolver);
    if (document) this.s.insertDocument.run(id, ...document);
    return id;
  }

  remove(path: string): void {
    const row = this.s.fileId.get(path) as { id: number } | null;
    if (!row) return;
    this.clearDerived(row.id);
    this.s.deleteFile.run(row.id);
  }

  /**
   * Re-resolves every stored link that could point at one of these files (added or removed).
   * Links of `fresh` sources were just written with the final resolver and are skipped.
   */
  reresolve(paths: Iterable<string>, resolver: LinkResolver, fresh: ReadonlySet<string>): number {
    const keys = new Set<string>();
    for (const p of paths) for (const k of keysForFile(p)) keys.add(k);
    let changed = 0;
    for (const key of keys) {
      for (const l of this.s.linksByKey.all(key) as { srcId: number; ord: number; linkpath: string; src: string }[]) {
        if (fresh.has(l.src)) continue;
        this.s.setDst.run(storedLinkDst(l.linkpath, resolver.resolve(l.linkpath, l.src)), l.srcId, l.ord);
        changed++;
      }
    }
    return changed;
  }

  private clearDerived(id: number): void {
    this.s.deleteFts.run(id);
    this.s.deleteChunks.run(id);
    this.s.deleteCjk.run(id);
    this.s.deleteNote.run(id);
    this.s.deleteLinks.run(id);
    this.s.deleteTags.run(id);
    this.s.deleteBlocks.run(id);
    this.s.deleteProperties.run(id);
    this.s.deleteDocument.run(id);
  }

  private writeNote(id: number, path: string, rows: NoteRows, resolver: LinkResolver): void {
    const s = this.s;
    const [title, aliases, tags, frontmatter, fmError, status, tasks, record] = rows.note;
    s.insertNote.run(id, title, aliases, tags, frontmatter, fmError, status, tasks, record && storedNoteRecord(record));
    // Resolved here, not with the other rows: a build's rows worker holds no resolver of every path.
    for (const l of rows.links) {
      const linkpath = l[3];
      s.insertLink.run(id, ...l, storedLinkDst(linkpath, resolver.resolve(linkpath, path)));
    }
    for (const t of rows.tags) s.insertTag.run(id, ...t);
    for (const p of rows.properties) s.insertProperty.run(id, ...p);
    for (const b of rows.blocks) s.insertBlock.run(id, ...b);
    for (const c of rows.chunks) s.insertChunk.run(id, ...c);
    if (rows.fts) s.insertFts.run(id, ...rows.fts);
    if (rows.cjk) s.insertCjk.run(id, rows.cjk);
  }
}

/** The writer's statements, each by name: a typed object, so no statement is looked up by a string. */
function statements(db: Database) {
  const q = (sql: string) => db.prepare(sql);
  return {
    fileId: q("SELECT id FROM files WHERE path = ?"),
    insertFile: q("INSERT INTO files(path, kind, size, mtime_ms, etag) VALUES (?, ?, ?, ?, ?)"),
    updateFile: q("UPDATE files SET kind = ?, size = ?, mtime_ms = ?, etag = ? WHERE id = ?"),
    touchFile: q("UPDATE files SET size = ?, mtime_ms = ? WHERE id = ?"),
    deleteFts: q("DELETE FROM notes_fts WHERE rowid = ?"),
    deleteChunks: q("DELETE FROM chunks WHERE file_id = ?"),
    deleteCjk: q("DELETE FROM cjk_fts WHERE rowid = ?"),
    deleteNote: q("DELETE FROM notes WHERE file_id = ?"),
    deleteLinks: q("DELETE FROM links WHERE src_id = ?"),
    deleteTags: q("DELETE FROM tags WHERE file_id = ?"),
    deleteBlocks: q("DELETE FROM blocks WHERE file_id = ?"),
    deleteProperties: q("DELETE FROM properties WHERE file_id = ?"),
    deleteDocument: q("DELETE FROM documents WHERE file_id = ?"),
    insertDocument: q("INSERT INTO documents(file_id, format, pages, problem, message) VALUES (?, ?, ?, ?, ?)"),
    deleteFile: q("DELETE FROM files WHERE id = ?"),
    insertNote: q("INSERT INTO notes(file_id, title, aliases, tags, frontmatter, fm_error, status, tasks, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
    insertLink: q(
      "INSERT INTO links(src_id, ord, embed, syntax, linkpath, subpath, display, raw, line, col_offset, prop, rel, target_key, dst_path) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    insertTag: q("INSERT INTO tags(file_id, tag, tag_lower, uses) VALUES (?, ?, ?, ?)"),
    insertProperty: q("INSERT INTO properties(file_id, ord, key_lower, key, num, text, day, link, bool) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
    insertBlock: q("INSERT INTO blocks(file_id, id_lower, id, line) VALUES (?, ?, ?, ?)"),
    insertCjk: q("INSERT INTO cjk_fts(rowid, grams) VALUES (?, ?)"),
    insertChunk: q("INSERT INTO chunks(file_id, ord, start_line, end_line, hash) VALUES (?, ?, ?, ?, ?)"),
    insertFts: q("INSERT INTO notes_fts(rowid, title, aliases, tags, headings, body) VALUES (?, ?, ?, ?, ?, ?)"),
    linksByKey: q(
      `SELECT l.src_id AS srcId, l.ord AS ord, l.linkpath AS linkpath, f.path AS src FROM links l JOIN files f ON f.id = l.src_id WHERE ${LINK_KEY_SQL} = ?`,
    ),
    setDst: q("UPDATE links SET dst_path = ? WHERE src_id = ? AND ord = ?"),
  };
}
type Statements = ReturnType<typeof statements>;
