import type { Database, Statement } from "bun:sqlite";
import { propertyRow } from "../bases/properties.ts";
import { cjkGrams } from "../core/cjk.ts";
import { etagOf } from "../core/hash.ts";
import { keysForFile, type LinkResolver, linkKey } from "../links/resolve.ts";
import type { ParsedNote } from "../markdown/types.ts";
import type { FileKind } from "../vault/scan.ts";

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

  /**
   * `deferSearch`: leave notes_fts alone; the caller rebuilds it whole once the rows are loaded
   * (a first build: one pass over the content is cheaper than a note at a time).
   */
  constructor(
    db: Database,
    private readonly deferSearch = false,
  ) {
    const q = (sql: string) => db.prepare(sql);
    this.s = {
      fileId: q("SELECT id FROM files WHERE path = ?"),
      insertFile: q("INSERT INTO files(path, kind, size, mtime_ms, etag, indexed_at) VALUES (?, ?, ?, ?, ?, ?)"),
      updateFile: q("UPDATE files SET kind = ?, size = ?, mtime_ms = ?, etag = ?, indexed_at = ? WHERE id = ?"),
      touchFile: q("UPDATE files SET size = ?, mtime_ms = ? WHERE id = ?"),
      // External content: FTS5 removes a row by the values it indexed, which note_search still gives.
      deleteFts: q(
        "INSERT INTO notes_fts(notes_fts, rowid, title, aliases, tags, headings, body) SELECT 'delete', file_id, title, aliases, tags, headings, body FROM note_search WHERE file_id = ?",
      ),
      deleteChunks: q("DELETE FROM chunks WHERE file_id = ?"),
      deleteCjk: q("DELETE FROM cjk_fts WHERE rowid = ?"),
      deleteNote: q("DELETE FROM notes WHERE file_id = ?"),
      deleteLinks: q("DELETE FROM links WHERE src_id = ?"),
      deleteTags: q("DELETE FROM tags WHERE file_id = ?"),
      deleteBlocks: q("DELETE FROM blocks WHERE file_id = ?"),
      deleteProperties: q("DELETE FROM properties WHERE file_id = ?"),
      deleteTasks: q("DELETE FROM tasks WHERE file_id = ?"),
      deleteFile: q("DELETE FROM files WHERE id = ?"),
      insertNote: q(
        "INSERT INTO notes(file_id, title, aliases, tags, frontmatter, fm_error, status, word_count, outline, search_aliases, search_tags, search_headings, title_skip) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      ),
      insertLink: q(
        "INSERT INTO links(src_id, ord, embed, syntax, linkpath, subpath, display, raw, line, col_offset, prop, rel, target_key, dst_path) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      ),
      insertTag: q("INSERT INTO tags(file_id, tag_lower, tag, source, line) VALUES (?, ?, ?, ?, ?)"),
      insertProperty: q("INSERT INTO properties(file_id, key, key_lower, type, value, num, text, day, link) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
      insertBlock: q("INSERT INTO blocks(file_id, id_lower, id, line) VALUES (?, ?, ?, ?)"),
      insertTask: q("INSERT INTO tasks(file_id, line, status, text) VALUES (?, ?, ?, ?)"),
      insertCjk: q("INSERT INTO cjk_fts(rowid, grams) VALUES (?, ?)"),
      insertChunk: q("INSERT INTO chunks(file_id, ord, heading_path, start_line, end_line, text, hash) VALUES (?, ?, ?, ?, ?, ?, ?)"),
      insertFts: q(
        "INSERT INTO notes_fts(rowid, title, aliases, tags, headings, body) SELECT file_id, title, aliases, tags, headings, body FROM note_search WHERE file_id = ?",
      ),
      linksByKey: q(
        "SELECT l.src_id AS srcId, l.ord AS ord, l.linkpath AS linkpath, f.path AS src FROM links l JOIN files f ON f.id = l.src_id WHERE l.target_key = ?",
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
    const now = Date.now();
    const existing = this.s.fileId!.get(file.path) as { id: number } | null;
    let id: number;
    if (existing) {
      id = existing.id;
      this.clearDerived(id);
      this.s.updateFile!.run(file.kind, file.size, file.mtimeMs, file.etag, now, id);
    } else {
      // run() + lastInsertRowid: RETURNING costs more than the insert itself in bun:sqlite.
      id = Number(this.s.insertFile!.run(file.path, file.kind, file.size, file.mtimeMs, file.etag, now).lastInsertRowid);
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
        this.s.setDst!.run(resolver.resolve(l.linkpath, l.src), l.srcId, l.ord);
        changed++;
      }
    }
    return changed;
  }

  private clearDerived(id: number): void {
    if (!this.deferSearch) this.s.deleteFts!.run(id);
    this.s.deleteChunks!.run(id);
    this.s.deleteCjk!.run(id);
    this.s.deleteNote!.run(id);
    this.s.deleteLinks!.run(id);
    this.s.deleteTags!.run(id);
    this.s.deleteBlocks!.run(id);
    this.s.deleteProperties!.run(id);
    this.s.deleteTasks!.run(id);
  }

  private writeNote(id: number, path: string, note: NoteRecord, resolver: LinkResolver): void {
    const p = note.parsed;
    const search = p ? searchFields(note.title, p) : { aliases: "", tags: "", headings: "", titleSkip: 0, cjk: "" };
    this.s.insertNote!.run(
      id,
      note.title,
      JSON.stringify(p?.aliases ?? []),
      JSON.stringify(p?.tags ?? []),
      p?.frontmatter ? JSON.stringify(p.frontmatter) : null,
      p?.frontmatterError ?? null,
      note.status,
      p?.wordCount ?? 0,
      JSON.stringify(p?.headings.map((h) => ({ level: h.level, text: h.text, line: h.line })) ?? []),
      search.aliases,
      search.tags,
      search.headings,
      search.titleSkip,
    );
    if (!p) return;
    p.links.forEach((l, ord) => {
      const key = linkKey(l.linkpath);
      this.s.insertLink!.run(
        id,
        ord,
        l.embed ? 1 : 0,
        l.syntax,
        l.linkpath,
        l.subpath,
        l.display,
        l.raw,
        l.line,
        l.offset,
        l.key ?? null,
        l.rel ?? null,
        key,
        resolver.resolve(l.linkpath, path),
      );
    });
    for (const t of p.tagOccurrences) this.s.insertTag!.run(id, t.tag.toLowerCase(), t.tag, t.source, t.line);
    for (const [key, value] of Object.entries(p.frontmatter ?? {})) {
      const r = propertyRow(key, value);
      this.s.insertProperty!.run(id, key, r.keyLower, r.type, r.json, r.num, r.text, r.day, r.link);
    }
    for (const b of p.blocks) this.s.insertBlock!.run(id, b.id.toLowerCase(), b.id, b.line);
    for (const t of p.tasks) this.s.insertTask!.run(id, t.line, t.status, t.text);
    for (const c of p.chunks) {
      const headingPath = JSON.stringify(c.headingPath);
      const hash = etagOf(`${headingPath}\n${c.text}`);
      this.s.insertChunk!.run(id, c.index, headingPath, c.startLine, c.endLine, c.text, hash);
    }
    if (!this.deferSearch) this.s.insertFts!.run(id);
    if (search.cjk) this.s.insertCjk!.run(id, search.cjk);
  }
}

/**
 * The note's fields for note_search. The title is counted once, in its own column: a heading that
 * repeats it (the usual `# Title` of a note) leaves the headings, and its line the body.
 */
function searchFields(title: string, p: ParsedNote): { aliases: string; tags: string; headings: string; titleSkip: number; cjk: string } {
  const same = (heading: string) => heading.trim().toLowerCase() === title.trim().toLowerCase();
  const first = p.chunks[0]?.text ?? "";
  const titleLine = /^#{1,6}[ \t]+(.*?)[ \t#]*(?:\n|$)/.exec(first);
  return {
    aliases: p.aliases.join(" "),
    tags: p.tags.map((t) => t.replaceAll("/", " ")).join(" "),
    headings: p.headings
      .map((h) => h.text)
      .filter((h) => !same(h))
      .join(" "),
    // SQLite's substr() counts characters, not UTF-16 units.
    titleSkip: titleLine && same(titleLine[1]!) ? [...titleLine[0]].length : 0,
    cjk: p.chunks
      .map((c) => cjkGrams(c.text))
      .join(" ")
      .trim(),
  };
}
