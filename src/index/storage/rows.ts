/**
 * A note's rows as the indexer hands them to the writer (index/build makes them, in a worker or
 * not; index/storage writes them): plain tuples, so they cross a worker boundary cheaply.
 */
export type NoteStatus = "ok" | "too_large" | "binary";

/*
 * Each row's values in the order of its INSERT (src/index/storage/writer.ts), less the file id, which only
 * the writer knows. Plain arrays of plain values: they cross from a worker as a cheap copy.
 */
export type NoteValues = [
  title: string,
  aliases: string,
  tags: string,
  frontmatter: string | null,
  fmError: string | null,
  status: NoteStatus,
  tasks: number,
  /**
   * The note's record (noteRecord() in src/index/storage/note-text.ts), compressed or not: a rows worker
   * compresses what it has time for, the writer the rest (storedNoteRecord).
   */
  record: Uint8Array | null,
];
/** Where NoteValues holds the record. */
export const RECORD_AT = 7;
export type LinkValues = [
  ord: number,
  embed: number,
  /** null for a wiki link (LINK_SYNTAX_SQL). */
  syntax: string | null,
  linkpath: string,
  subpath: string,
  display: string | null,
  raw: string | null,
  line: number,
  colOffset: number,
  prop: string | null,
  rel: string | null,
  targetKey: string | null,
];
export type TagValues = [tag: string, tagLower: string, uses: number];
export type PropertyValues = [
  ord: number,
  keyLower: string,
  /** null when the key is its own lowercase. */
  key: string | null,
  num: number | null,
  text: string | null,
  day: string | null,
  link: string | null,
  bool: number | null,
];
export type BlockValues = [idLower: string, id: string, line: number];
export type ChunkValues = [ord: number, startLine: number, endLine: number, hash: bigint];
/**
 * The body comes as UTF-8 bytes from a rows worker (rows-codec.ts): FTS5 reads a blob as the text
 * it holds, and the writer's thread neither decodes it nor encodes it again to bind it.
 */
export type FtsValues = [title: string, aliases: string, tags: string, headings: string, body: string | Uint8Array];

/** A PDF's or DOCX's row in the documents table. */
export type DocumentValues = [format: string, pages: number, problem: string | null, message: string | null];

/** Every row a note adds to the index. */
export interface NoteRows {
  note: NoteValues;
  links: LinkValues[];
  tags: TagValues[];
  properties: PropertyValues[];
  blocks: BlockValues[];
  chunks: ChunkValues[];
  /** A note without chunks has no words to find: it gets no full-text row. */
  fts: FtsValues | null;
  cjk: string | null;
}
