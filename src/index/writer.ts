import type { Database, Statement } from "bun:sqlite";
import { propertyRow } from "../bases/properties.ts";
import { cjkGrams } from "../core/cjk.ts";
import { etagOf } from "../core/hash.ts";
import { keysForFile, type LinkResolver, linkKey } from "../links/resolve.ts";
import type { ParsedNote } from "../markdown/types.ts";
import type { FileKind } from "../vault/scan.ts";
import { hashKey } from "./chunk-keys.ts";
import { encodeNoteText } from "./note-text.ts";
import { LINK_KEY_SQL, storedLinkDst, storedLinkForms } from "./schema.ts";
import { searchDocument, searchHeadings } from "./search-document.ts";

export type NoteStatus = "ok" | "too_large" | "binary";

export interface FileRecord {
  path: string;
  kind: FileKind;
  size: number;
  mtimeMs: number;
  etag: string | null;
}

export interface NoteRecord {
  title: string;
  status: NoteStatus;
  parsed: ParsedNote | null;
}

/**
 * Prepared statements that write one file's rows. Callers wrap calls in a transaction;
 * every write replaces all rows derived from the file, so a re-index is idempotent.
 */
export class IndexWriter {
  private readonly s: Record<string, Statement>;

  constructor(db: Database) {
    const q = (sql: string) => db.prepare(sql);
    this.s = {
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

  /** Only size/mtime changed (the bytes hash the same): keep every derived row. */
  touch(id: number, size: number, mtimeMs: number): void {
    this.s.touchFile!.run(size, mtimeMs, id);
  }

  /** Inserts or replaces a file and everything derived from it. Returns the file id. */
  upsert(file: FileRecord, note: NoteRecord | null, resolver: LinkResolver): number {
    const existing = this.s.fileId!.get(file.path) as { id: number } | null;
    let id: number;
    if (existing) {
      id = existing.id;
      this.clearDerived(id);
      this.s.updateFile!.run(file.kind, file.size, file.mtimeMs, file.etag, id);
    } else {
      // run() + lastInsertRowid: RETURNING costs more than the insert itself in bun:sqlite.
      id = Number(this.s.insertFile!.run(file.path, file.kind, file.size, file.mtimeMs, file.etag).lastInsertRowid);
    }
    if (note) this.writeNote(id, file.path, note, resolver);
    return id;
  }

  remove(path: string): void {
    const row = this.s.fileId!.get(path) as { id: number } | null;
    if (!row) return;
    this.clearDerived(row.id);
    this.s.deleteFile!.run(row.id);
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
      for (const l of this.s.linksByKey!.all(key) as { srcId: number; ord: number; linkpath: string; src: string }[]) {
        if (fresh.has(l.src)) continue;
        this.s.setDst!.run(storedLinkDst(l.linkpath, resolver.resolve(l.linkpath, l.src)), l.srcId, l.ord);
        changed++;
      }
    }
    return changed;
  }

  private clearDerived(id: number): void {
    this.s.deleteFts!.run(id);
    this.s.deleteChunks!.run(id);
    this.s.deleteCjk!.run(id);
    this.s.deleteNote!.run(id);
    this.s.deleteLinks!.run(id);
    this.s.deleteTags!.run(id);
    this.s.deleteBlocks!.run(id);
    this.s.deleteProperties!.run(id);
  }

  private writeNote(id: number, path: string, note: NoteRecord, resolver: LinkResolver): void {
    const p = note.parsed;
    const aliases = p?.aliases ?? [];
    const tags = p?.tags ?? [];
    const headings = p
      ? searchHeadings(
          note.title,
          p.headings.map((h) => h.text),
        )
      : "";
    const chunks = p?.chunks ?? [];
    this.s.insertNote!.run(
      id,
      note.title,
      JSON.stringify(aliases),
      JSON.stringify(tags),
      p?.frontmatter ? JSON.stringify(p.frontmatter) : null,
      p?.frontmatterError ?? null,
      note.status,
      p?.tasks.length ?? 0,
      p
        ? encodeNoteText({
            outline: p.headings.map((h) => ({ level: h.level, text: h.text })),
            chunks: chunks.map((c) => ({ headingPath: c.headingPath, text: c.text })),
          })
        : null,
    );
    if (!p) return;
    p.links.forEach((l, ord) => {
      const stored = storedLinkForms(l, linkKey(l.linkpath));
      this.s.insertLink!.run(
        id,
        ord,
        l.embed ? 1 : 0,
        stored.syntax,
        l.linkpath,
        l.subpath,
        l.display,
        stored.raw,
        l.line,
        l.offset,
        l.key ?? null,
        l.rel ?? null,
        stored.key,
        storedLinkDst(l.linkpath, resolver.resolve(l.linkpath, path)),
      );
    });
    const uses = new Map<string, number>();
    for (const t of p.tagOccurrences) uses.set(t.tag, (uses.get(t.tag) ?? 0) + 1);
    for (const [tag, n] of uses) this.s.insertTag!.run(id, tag, tag.toLowerCase(), n);
    Object.entries(p.frontmatter ?? {}).forEach(([key, value], ord) => {
      const r = propertyRow(key, value);
      this.s.insertProperty!.run(id, ord, r.keyLower, r.key, r.num, r.text, r.day, r.link, r.bool);
    });
    for (const b of p.blocks) this.s.insertBlock!.run(id, b.id.toLowerCase(), b.id, b.line);
    for (const c of chunks) this.s.insertChunk!.run(id, c.index, c.startLine, c.endLine, hashKey(etagOf(`${JSON.stringify(c.headingPath)}\n${c.text}`)));
    // A note without chunks has no words to find: it gets no full-text row.
    if (chunks.length && note.status === "ok") {
      const doc = searchDocument({ title: note.title, aliases, tags, headings, texts: chunks.map((c) => c.text) });
      this.s.insertFts!.run(id, doc.title, doc.aliases, doc.tags, doc.headings, doc.body);
    }
    const grams = chunks
      .map((c) => cjkGrams(c.text))
      .join(" ")
      .trim();
    if (grams) this.s.insertCjk!.run(id, grams);
  }
}
