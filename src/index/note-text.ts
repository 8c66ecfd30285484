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
  chunks: { headingPath: string[]; text: string }[];
}

/** zstd's level 3 (its default): level 9 saved 2% more for three times the time. */
const LEVEL = 3;

type Stored = [outline: [level: number, text: string][], chunks: [headingPath: string[], text: string][]];

export function encodeNoteText(note: NoteText): Uint8Array {
  const stored: Stored = [note.outline.map((h) => [h.level, h.text]), note.chunks.map((c) => [c.headingPath, c.text])];
  return Bun.zstdCompressSync(Buffer.from(JSON.stringify(stored)), { level: LEVEL });
}

export function decodeNoteText(bytes: Uint8Array): NoteText {
  const [outline, chunks] = JSON.parse(Bun.zstdDecompressSync(bytes).toString()) as Stored;
  return { outline: outline.map(([level, text]) => ({ level, text })), chunks: chunks.map(([headingPath, text]) => ({ headingPath, text })) };
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
