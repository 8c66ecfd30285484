import type { Database } from "bun:sqlite";
import { searchHeadings } from "../../lexical/search-document.ts";
import { chunkIdOf, chunkIdSql, chunkOfIdSql, hashHexSql, hashKeyList } from "../chunk-keys.ts";
import { decodeNoteText, NoteTextReader } from "../note-text.ts";
import { jsonList } from "./lists.ts";

/** One chunk with its note's title and metadata (chunk_get). */
export interface ChunkDetail {
  title: string;
  aliasesJson: string;
  frontmatterJson: string | null;
  /** The heading texts above the chunk. */
  headingPath: string[];
  startLine: number;
  endLine: number;
  text: string;
}

/** What a model reads of a chunk: the note title, the heading path and the text. */
export interface ChunkPassage {
  chunkId: number;
  title: string;
  headingPath: string[];
  text: string;
}

/** A chunk as a grounded prompt cites it: where it is, which version of its note, and its text. */
export interface ChunkSource {
  path: string;
  etag: string;
  ord: number;
  headingPath: string[];
  startLine: number;
  endLine: number;
  text: string;
}

/** The text embedded for a content hash (one of the chunks that have it). */
export interface EmbeddingInput {
  hash: string;
  headingPath: string[];
  text: string;
}

/** A note as search shows it: what it indexes for full-text search, its sections, and what a result names. */
export interface NoteSections {
  fileId: number;
  path: string;
  title: string;
  aliases: string[];
  tags: string[];
  frontmatterJson: string | null;
  headings: string;
  sections: NoteSection[];
}

export interface NoteSection {
  chunkId: number;
  ord: number;
  headingPath: string[];
  text: string;
  startLine: number;
}

export interface ChunkOfHash {
  chunkId: number;
  fileId: number;
  hash: string;
}

/** A row that names a chunk of a note, with the note's compressed text (notes.text). */
interface Located {
  fileId: number;
  ord: number;
  noteText: Uint8Array;
}

/** Rows with their chunk's heading path and text, read from their notes' records (each decoded once). */
function withText<R extends Located>(rows: R[]): (Omit<R, "noteText"> & { headingPath: string[]; text: string })[] {
  const reader = new NoteTextReader();
  return rows.map(({ noteText, ...rest }) => {
    const chunk = reader.of(rest.fileId, noteText).chunks[rest.ord] ?? { headingPath: [], text: "" };
    return { ...rest, headingPath: chunk.headingPath, text: chunk.text };
  });
}

const HASH = hashHexSql("hash");
const LOCATED = "c.file_id AS fileId, c.ord, n.text AS noteText";
const SOURCE_COLUMNS = `f.path, f.etag, c.start_line AS startLine, c.end_line AS endLine, ${LOCATED}`;

/**
 * Heading-aware sections of notes, keyed by id; `hash` is the content hash embeddings are keyed by.
 * Their text and heading paths live in the note's compressed record (src/index/storage/note-text.ts).
 */
export class ChunkQueries {
  constructor(private readonly db: Database) {}

  count(): number {
    return this.db.query<{ n: number }, []>("SELECT count(*) AS n FROM chunks").get()?.n ?? 0;
  }

  /** The chunk `ord` of the note at `path`. */
  get(path: string, ord: number): ChunkDetail | null {
    const row = this.db
      .query<Omit<ChunkDetail, "headingPath" | "text"> & Located, [string, number]>(
        `SELECT n.title, n.aliases AS aliasesJson, n.frontmatter AS frontmatterJson, c.start_line AS startLine, c.end_line AS endLine, ${LOCATED}
           FROM chunks c JOIN files f ON f.id = c.file_id JOIN notes n ON n.file_id = c.file_id
          WHERE f.path = ? AND c.ord = ?`,
      )
      .get(path, ord);
    return row ? (withText([row])[0] ?? null) : null;
  }

  /** Texts of a note's chunks in order, or of its chunk `ord` alone. */
  texts(fileId: number, ord: number | null): string[] {
    const row = this.db.query<{ noteText: Uint8Array | null }, [number]>("SELECT text AS noteText FROM notes WHERE file_id = ?").get(fileId);
    if (!row?.noteText) return [];
    const chunks = decodeNoteText(row.noteText).chunks;
    return (ord === null ? chunks : chunks.slice(ord, ord + 1)).map((c) => c.text);
  }

  /**
   * These notes (any order; notes without text are missing) with their sections in order, in one
   * statement: a chunk's id is its note's id and its place (src/index/storage/chunk-keys.ts), its place is
   * its index in the note's record, and the record keeps its start line too.
   */
  noteSections(fileIds: number[]): NoteSections[] {
    const notes = this.db
      .query<ShownNoteRow, [string]>(
        `SELECT n.file_id AS fileId, f.path, n.title, n.aliases AS aliasesJson, n.tags AS tagsJson, n.frontmatter AS frontmatterJson, n.text AS noteText
           FROM json_each(?) j JOIN notes n ON n.file_id = j.value JOIN files f ON f.id = n.file_id
          WHERE n.text IS NOT NULL`,
      )
      .all(jsonList(fileIds));
    return notes.map((n) => {
      const text = decodeNoteText(n.noteText);
      return {
        fileId: n.fileId,
        path: n.path,
        title: n.title,
        aliases: JSON.parse(n.aliasesJson) as string[],
        tags: JSON.parse(n.tagsJson) as string[],
        frontmatterJson: n.frontmatterJson,
        headings: searchHeadings(
          n.title,
          text.outline.map((h) => h.text),
        ),
        sections: text.chunks.map((chunk, ord) => ({
          chunkId: chunkIdOf(n.fileId, ord),
          ord,
          headingPath: chunk.headingPath,
          text: chunk.text,
          startLine: chunk.startLine,
        })),
      };
    });
  }

  /** Content hashes of a note's chunks, or of its chunk `ord` alone. */
  hashes(fileId: number, ord: number | null): string[] {
    return this.db
      .query<{ hash: string }, [number, number | null]>(`SELECT ${HASH} AS hash FROM chunks WHERE file_id = ?1 AND (?2 IS NULL OR ord = ?2)`)
      .values(fileId, ord)
      .map((r) => r[0] as string);
  }

  /** Distinct content hashes of the notes with these ids. */
  hashesOfFiles(fileIds: Iterable<number>): string[] {
    return this.db
      .query<{ hash: string }, [string]>(`SELECT ${HASH} AS hash FROM chunks WHERE file_id IN (SELECT value FROM json_each(?)) GROUP BY hash`)
      .values(jsonList(fileIds))
      .map((r) => r[0] as string);
  }

  /**
   * Content hashes that only chunks of these notes have: text no other note shares (the deny
   * wall's fingerprint, and the vectors a deny glob drops: src/providers/wall.ts).
   */
  hashesOnlyIn(fileIds: Iterable<number>): string[] {
    // With the content-hash index (embeddings configured) each chunk of these notes is one lookup;
    // without it, one pass over every chunk beats a scan per chunk.
    const indexed = this.db.query("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'chunks_hash'").get() !== null;
    const sql = indexed
      ? `SELECT DISTINCT ${hashHexSql("c.hash")} AS hash FROM chunks c WHERE c.file_id IN (SELECT value FROM json_each(?1))
           AND NOT EXISTS (SELECT 1 FROM chunks o WHERE o.hash = c.hash AND o.file_id NOT IN (SELECT value FROM json_each(?1)))`
      : `SELECT ${HASH} AS hash FROM chunks WHERE file_id IN (SELECT value FROM json_each(?1)) GROUP BY hash
         EXCEPT SELECT ${HASH} AS hash FROM chunks WHERE file_id NOT IN (SELECT value FROM json_each(?1)) GROUP BY hash`;
    return this.db
      .query<{ hash: string }, [string]>(sql)
      .values(jsonList(fileIds))
      .map((r) => r[0] as string);
  }

  /** Distinct content hashes of every chunk: what should have a vector. */
  distinctHashes(): Set<string> {
    return new Set(
      this.db
        .query<{ hash: string }, []>(`SELECT ${HASH} AS hash FROM chunks GROUP BY hash`)
        .values()
        .map((r) => r[0] as string),
    );
  }

  /** Every chunk with one of these content hashes (copies share one), by id. */
  withHashes(hashes: string[]): ChunkOfHash[] {
    return this.db
      .query<ChunkOfHash, [string]>(
        `SELECT ${chunkIdSql("c")} AS chunkId, c.file_id AS fileId, ${hashHexSql("c.hash")} AS hash FROM chunks c
          WHERE c.hash IN (SELECT value FROM json_each(?)) ORDER BY c.file_id, c.ord`,
      )
      .all(hashKeyList(hashes));
  }

  /** One text per content hash, for the embedding job; hashes gone from the index are missing. */
  embeddingInputs(hashes: string[]): EmbeddingInput[] {
    return withText(
      this.db
        .query<{ hash: string } & Located, [string]>(
          `SELECT ${hashHexSql("c.hash")} AS hash, ${LOCATED}
             FROM (SELECT min(${chunkIdSql("k")}) AS id FROM chunks k WHERE k.hash IN (SELECT value FROM json_each(?)) GROUP BY k.hash) first
             JOIN chunks c ON ${chunkOfIdSql("c", "first.id")} JOIN notes n ON n.file_id = c.file_id`,
        )
        .all(hashKeyList(hashes)),
    );
  }

  /** Every chunk of these notes, notes in the order given, chunks in note order. */
  sourcesOf(paths: string[]): ChunkSource[] {
    return withText(
      this.db
        .query<SourceRow, [string]>(
          `SELECT ${SOURCE_COLUMNS} FROM json_each(?1) j JOIN files f ON f.path = j.value JOIN chunks c ON c.file_id = f.id JOIN notes n ON n.file_id = f.id
            WHERE f.etag IS NOT NULL ORDER BY j.key, c.ord`,
        )
        .all(JSON.stringify(paths)),
    );
  }

  /** These chunks (by note path and position), in the order given; chunks not found are missing. */
  sourcesAt(refs: { path: string; ord: number }[]): ChunkSource[] {
    return withText(
      this.db
        .query<SourceRow, [string]>(
          `SELECT ${SOURCE_COLUMNS} FROM json_each(?1) j JOIN files f ON f.path = j.value ->> 0 JOIN chunks c ON c.file_id = f.id AND c.ord = j.value ->> 1
             JOIN notes n ON n.file_id = f.id
            WHERE f.etag IS NOT NULL ORDER BY j.key`,
        )
        .all(JSON.stringify(refs.map((r) => [r.path, r.ord]))),
    );
  }

  /** Passages of some chunks for a model to read (any order; ids not found are missing). */
  passages(chunkIds: number[]): ChunkPassage[] {
    return withText(
      this.db
        .query<{ chunkId: number; title: string } & Located, [string]>(
          `SELECT j.value AS chunkId, n.title, ${LOCATED} FROM json_each(?) j JOIN chunks c ON ${chunkOfIdSql("c", "j.value")}
             JOIN notes n ON n.file_id = c.file_id`,
        )
        .all(jsonList(chunkIds)),
    );
  }
}

type SourceRow = Omit<ChunkSource, "headingPath" | "text" | "ord"> & Located;

interface ShownNoteRow {
  fileId: number;
  path: string;
  title: string;
  aliasesJson: string;
  tagsJson: string;
  frontmatterJson: string | null;
  noteText: Uint8Array;
}
