/**
 * A note's text as the index keeps it: its chunks (heading path and text) and its headings (which
 * links' anchors and full-text search read), in one zstd-compressed record per note (notes.text). Compressed, the
 * text takes about half the room of the Markdown; nothing in SQL needs it in the clear, since the
 * full-text index keeps no content and snippets are made from these records
 * (docs/decisions.md, "An index half the size").
 */
export interface NoteText {
  /** Every heading in document order. */
  outline: { level: number; text: string }[];
  /** Each chunk's heading path, text and first line (1-based, as the chunks table has it). */
  chunks: { headingPath: string[]; text: string; startLine: number }[];
}

/** zstd's level 3 (its default): level 9 saved 2% more for three times the time. */
const LEVEL = 3;

/**
 * What precedes the texts: the outline, each chunk's heading path, text length (UTF-16) and start
 * line. The start lines are the chunk rows' too, kept here so that showing a note reads only its
 * record: fetching them from the chunk rows was half of the statement that fetches the records.
 */
type Header = [outline: [level: number, text: string][], headingPaths: string[][], lengths: number[], startLines: number[]];

/**
 * The record is its header as JSON, a newline (JSON writes none of its own), then the chunks'
 * texts one after another. Search decodes the record of every note it shows, and JSON.parse of
 * the texts (their escaped newlines and quotes) cost as much as zstd itself; slicing costs
 * nothing (docs/decisions.md, "Marking matches without FTS5"). A build's rows worker makes the
 * record and compresses as many records as it has time for; the writer's thread compresses the
 * rest (storedNoteRecord), which evens out the two threads' work.
 */
export function noteRecord(note: NoteText): Uint8Array {
  const header: Header = [
    note.outline.map((h) => [h.level, h.text]),
    note.chunks.map((c) => c.headingPath),
    note.chunks.map((c) => c.text.length),
    note.chunks.map((c) => c.startLine),
  ];
  return Buffer.from(`${JSON.stringify(header)}\n${note.chunks.map((c) => c.text).join("")}`);
}

export function compressNoteRecord(record: Uint8Array): Uint8Array {
  return Bun.zstdCompressSync(record, { level: LEVEL });
}

/** Every zstd frame starts with these bytes; a record in the clear starts with its JSON header's `[`. */
const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];

/** The record as notes.text keeps it: compressed, unless it came compressed already. */
export function storedNoteRecord(record: Uint8Array): Uint8Array {
  return ZSTD_MAGIC.every((b, i) => record[i] === b) ? record : compressNoteRecord(record);
}

export function decodeNoteText(bytes: Uint8Array): NoteText {
  const record = Bun.zstdDecompressSync(bytes).toString();
  const split = record.indexOf("\n");
  const [outline, headingPaths, lengths, startLines] = JSON.parse(record.slice(0, split)) as Header;
  let at = split + 1;
  return {
    outline: outline.map(([level, text]) => ({ level, text })),
    chunks: headingPaths.map((headingPath, i) => {
      const length = lengths[i] ?? 0;
      const text = record.slice(at, at + length);
      at += length;
      return { headingPath, text, startLine: startLines[i] ?? 0 };
    }),
  };
}

/** Decodes each note's record once for a set of rows that may share notes. */
export class NoteTextReader {
  private readonly decoded = new Map<number, NoteText>();

  of(fileId: number, bytes: Uint8Array): NoteText {
    let text = this.decoded.get(fileId);
    if (!text) {
      text = decodeNoteText(bytes);
      this.decoded.set(fileId, text);
    }
    return text;
  }
}
