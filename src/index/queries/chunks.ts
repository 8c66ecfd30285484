import type { Database } from "bun:sqlite";
import { jsonList } from "./lists.ts";

/** One chunk with its note's title and metadata (chunk_get). */
export interface ChunkDetail {
  title: string;
  aliasesJson: string;
  frontmatterJson: string | null;
  /** JSON array of the heading texts above the chunk. */
  headingPathJson: string;
  startLine: number;
  endLine: number;
  text: string;
}

/** A chunk as a search result shows it, with its note. */
export interface ChunkHit {
  chunkId: number;
  path: string;
  title: string;
  tagsJson: string;
  aliasesJson: string;
  frontmatterJson: string | null;
  ord: number;
  headingPathJson: string;
  startLine: number;
  text: string;
}

/** What a model reads of a chunk: the note title, the heading path and the text. */
export interface ChunkPassage {
  chunkId: number;
  title: string;
  headingPathJson: string;
  text: string;
}

/** A chunk as a grounded prompt cites it: where it is, which version of its note, and its text. */
export interface ChunkSource {
  path: string;
  etag: string;
  ord: number;
  headingPathJson: string;
  startLine: number;
  endLine: number;
  text: string;
}

const SOURCE_COLUMNS = "f.path, f.etag, c.ord, c.heading_path AS headingPathJson, c.start_line AS startLine, c.end_line AS endLine, c.text";

/** The text embedded for a content hash (one of the chunks that have it). */
export interface EmbeddingInput {
  hash: string;
  headingPathJson: string;
  text: string;
}

/** A chunk of a note as search reads it: note_search's body is the note's chunks joined by a blank line. */
export interface NoteSection {
  chunkId: number;
  fileId: number;
  ord: number;
  text: string;
  /** Characters (code points) of the note's first chunk that note_search's body leaves out (a `# Title` line). */
  titleSkip: number;
}

export interface ChunkOfHash {
  chunkId: number;
  fileId: number;
  hash: string;
}

/** Heading-aware sections of notes, keyed by id; `hash` is the content hash embeddings are keyed by. */
export class ChunkQueries {
  constructor(private readonly db: Database) {}

  count(): number {
    return this.db.query<{ n: number }, []>("SELECT count(*) AS n FROM chunks").get()?.n ?? 0;
  }

  /** The chunk `ord` of the note at `path`. */
  get(path: string, ord: number): ChunkDetail | null {
    return this.db
      .query<ChunkDetail, [string, number]>(
        `SELECT n.title, n.aliases AS aliasesJson, n.frontmatter AS frontmatterJson, c.heading_path AS headingPathJson,
                c.start_line AS startLine, c.end_line AS endLine, c.text
           FROM chunks c JOIN files f ON f.id = c.file_id JOIN notes n ON n.file_id = c.file_id
          WHERE f.path = ? AND c.ord = ?`,
      )
      .get(path, ord);
  }

  /** Texts of a note's chunks in order, or of its chunk `ord` alone. */
  texts(fileId: number, ord: number | null): string[] {
    return this.db
      .query<{ text: string }, [number, number | null]>("SELECT text FROM chunks WHERE file_id = ?1 AND (?2 IS NULL OR ord = ?2) ORDER BY ord")
      .all(fileId, ord)
      .map((r) => r.text);
  }

  /** Every chunk of these notes, in order (notes in any order). */
  sections(fileIds: number[]): NoteSection[] {
    return this.db
      .query<NoteSection, [string]>(
        `SELECT c.id AS chunkId, c.file_id AS fileId, c.ord, c.text, n.title_skip AS titleSkip FROM chunks c JOIN notes n ON n.file_id = c.file_id
          WHERE c.file_id IN (SELECT value FROM json_each(?)) ORDER BY c.file_id, c.ord`,
      )
      .all(jsonList(fileIds));
  }

  /** Content hashes of a note's chunks, or of its chunk `ord` alone. */
  hashes(fileId: number, ord: number | null): string[] {
    return this.db
      .query<{ hash: string }, [number, number | null]>("SELECT hash FROM chunks WHERE file_id = ?1 AND (?2 IS NULL OR ord = ?2)")
      .values(fileId, ord)
      .map((r) => r[0] as string);
  }

  /** Distinct content hashes of the notes with these ids. */
  hashesOfFiles(fileIds: Iterable<number>): string[] {
    return this.db
      .query<{ hash: string }, [string]>("SELECT DISTINCT hash FROM chunks WHERE file_id IN (SELECT value FROM json_each(?))")
      .values(jsonList(fileIds))
      .map((r) => r[0] as string);
  }

  /** Distinct content hashes of every chunk: what should have a vector. */
  distinctHashes(): Set<string> {
    return new Set(
      this.db
        .query<{ hash: string }, []>("SELECT DISTINCT hash FROM chunks")
        .values()
        .map((r) => r[0] as string),
    );
  }

  /** Every chunk with one of these content hashes (copies share one), by id. */
  withHashes(hashes: string[]): ChunkOfHash[] {
    return this.db
      .query<ChunkOfHash, [string]>("SELECT id AS chunkId, file_id AS fileId, hash FROM chunks WHERE hash IN (SELECT value FROM json_each(?)) ORDER BY id")
      .all(jsonList(hashes));
  }

  /** One text per content hash, for the embedding job; hashes gone from the index are missing. */
  embeddingInputs(hashes: string[]): EmbeddingInput[] {
    return this.db
      .query<EmbeddingInput, [string]>(
        "SELECT hash, heading_path AS headingPathJson, text FROM chunks WHERE hash IN (SELECT value FROM json_each(?)) GROUP BY hash",
      )
      .all(jsonList(hashes));
  }

  /** The result rows of some chunks (any order; ids not found are missing). */
  hits(chunkIds: number[]): ChunkHit[] {
    return this.db
      .query<ChunkHit, [string]>(
        `SELECT c.id AS chunkId, f.path, n.title, n.tags AS tagsJson, n.aliases AS aliasesJson, n.frontmatter AS frontmatterJson,
                c.ord, c.heading_path AS headingPathJson, c.start_line AS startLine, c.text
           FROM chunks c JOIN files f ON f.id = c.file_id JOIN notes n ON n.file_id = c.file_id
          WHERE c.id IN (SELECT value FROM json_each(?1))`,
      )
      .all(jsonList(chunkIds));
  }

  /** Every chunk of these notes, notes in the order given, chunks in note order. */
  sourcesOf(paths: string[]): ChunkSource[] {
    return this.db
      .query<ChunkSource, [string]>(
        `SELECT ${SOURCE_COLUMNS} FROM json_each(?1) j JOIN files f ON f.path = j.value JOIN chunks c ON c.file_id = f.id
          WHERE f.etag IS NOT NULL ORDER BY j.key, c.ord`,
      )
      .all(JSON.stringify(paths));
  }

  /** These chunks (by note path and position), in the order given; chunks not found are missing. */
  sourcesAt(refs: { path: string; ord: number }[]): ChunkSource[] {
    return this.db
      .query<ChunkSource, [string]>(
        `SELECT ${SOURCE_COLUMNS} FROM json_each(?1) j JOIN files f ON f.path = j.value ->> 0 JOIN chunks c ON c.file_id = f.id AND c.ord = j.value ->> 1
          WHERE f.etag IS NOT NULL ORDER BY j.key`,
      )
      .all(JSON.stringify(refs.map((r) => [r.path, r.ord])));
  }

  /** Passages of some chunks for a model to read (any order; ids not found are missing). */
  passages(chunkIds: number[]): ChunkPassage[] {
    return this.db
      .query<ChunkPassage, [string]>(
        `SELECT c.id AS chunkId, n.title, c.heading_path AS headingPathJson, c.text FROM chunks c JOIN notes n ON n.file_id = c.file_id
          WHERE c.id IN (SELECT value FROM json_each(?))`,
      )
      .all(jsonList(chunkIds));
  }
}
