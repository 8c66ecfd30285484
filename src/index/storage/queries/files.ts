import type { Database } from "bun:sqlite";

/** What the indexer compares with the disk to decide what to re-read. */
export interface StoredFile {
  id: number;
  path: string;
  size: number;
  mtimeMs: number;
  etag: string | null;
}

/** A file's path, size and mtime (ms) as indexed. */
export type FileStamp = [path: string, size: number, mtimeMs: number];

export interface NoteFile {
  id: number;
  path: string;
}

/** Files of every kind known to the index. */
export class FileQueries {
  constructor(private readonly db: Database) {}

  stored(): StoredFile[] {
    return this.db.query<StoredFile, []>("SELECT id, path, size, mtime_ms AS mtimeMs, etag FROM files").all();
  }

  /** The stored rows of those of these paths that are indexed. */
  storedOf(paths: readonly string[]): StoredFile[] {
    return this.db
      .query<StoredFile, [string]>("SELECT f.id, f.path, f.size, f.mtime_ms AS mtimeMs, f.etag FROM json_each(?1) j JOIN files f ON f.path = j.value")
      .all(JSON.stringify(paths));
  }

  /**
   * Every indexed path with the size and mtime it was indexed at: what an index pass compares
   * with the disk. Rows as arrays, a quarter of the time of whole rows as objects (100,000 files:
   * 14 ms, not 50).
   */
  stamps(): FileStamp[] {
    // values() types a row as an array of any column type: these are the three columns selected.
    return this.db.query<FileStamp, []>("SELECT path, size, mtime_ms FROM files ORDER BY id").values() as FileStamp[];
  }

  /**
   * The stamps of the files directly in a folder ("" for the vault's root), or anywhere under it
   * with `deep`. A range of the path index, not a scan of every file (src/index/build/folder-check.ts).
   */
  stampsIn(folder: string, deep = false): FileStamp[] {
    const rows = (
      folder === ""
        ? this.db.query<FileStamp, []>("SELECT path, size, mtime_ms FROM files").values()
        : // '0' follows '/' in code-point order: [folder/, folder0) is everything under folder/.
          this.db.query<FileStamp, [string, string]>("SELECT path, size, mtime_ms FROM files WHERE path >= ?1 AND path < ?2").values(`${folder}/`, `${folder}0`)
    ) as FileStamp[];
    if (deep) return rows;
    const depth = folder === "" ? 0 : folder.length + 1;
    return rows.filter(([path]) => path.indexOf("/", depth) === -1);
  }

  /** The stamps of those of these paths that are indexed. */
  stampsOf(paths: readonly string[]): FileStamp[] {
    return this.db
      .query<FileStamp, [string]>("SELECT f.path, f.size, f.mtime_ms FROM json_each(?1) j JOIN files f ON f.path = j.value")
      .values(JSON.stringify(paths)) as FileStamp[];
  }

  /** Every indexed vault path (notes, canvases, bases, attachments): what links can resolve to. */
  paths(): string[] {
    return this.db
      .query<{ path: string }, []>("SELECT path FROM files")
      .all()
      .map((r) => r.path);
  }

  canvasPaths(): string[] {
    return this.db
      .query<{ path: string }, []>("SELECT path FROM files WHERE kind = 'canvas' ORDER BY path")
      .all()
      .map((r) => r.path);
  }

  notes(): NoteFile[] {
    return this.db.query<NoteFile, []>("SELECT id, path FROM files WHERE kind = 'note'").all();
  }

  /**
   * The files whose text the index holds: every note, and each PDF or DOCX with extracted text
   * (docs/documents.md). Search filters, AI scopes and the deny wall read these, so a glob or a
   * deny rule covers a document's sections exactly as a note's.
   */
  withText(): NoteFile[] {
    return this.db.query<NoteFile, []>("SELECT f.id, f.path FROM files f JOIN notes n ON n.file_id = f.id").all();
  }

  /** The indexed version of each of these files that has one, in the order given. */
  etagsOf(paths: readonly string[]): { path: string; etag: string }[] {
    return this.db
      .query<{ path: string; etag: string }, [string]>(
        "SELECT f.path, f.etag FROM json_each(?1) j JOIN files f ON f.path = j.value WHERE f.etag IS NOT NULL ORDER BY j.key",
      )
      .all(JSON.stringify(paths));
  }
}
