import type { ChunkSource } from "../index/storage/queries/chunks.ts";
import type { OpContext } from "../ops/context.ts";
import { estimateTokens } from "../providers/tokens.ts";

/**
 * A numbered source passage: one chunk of a note as the model reads it (docs/contracts.md, AI
 * runtime). The model cites `id`; only the runtime knows the path, version and lines behind it.
 */
export interface Passage {
  /** "P1", "P2", …: unique within one call. */
  id: string;
  path: string;
  etag: string;
  /** The chunk's position in its note: its chunk id is `<path>#<ord>`. */
  ord: number;
  /** The section's heading, null before the first heading. */
  heading: string | null;
  /** What a link to the section appends after '#' (the heading text), null when none. */
  anchor: string | null;
  /** A PDF's page (its chunk is the page: docs/documents.md); undefined for a note or a DOCX. */
  page?: number;
  /** 1-based, inclusive, in the note's file; a PDF passage's page. */
  startLine: number;
  endLine: number;
  text: string;
  tokens: number;
}

const PDF = /\.pdf$/i;

function toPassages(rows: ChunkSource[]): Passage[] {
  return rows.map((r, i) => {
    const headings = r.headingPath;
    const heading = headings[headings.length - 1] ?? null;
    return {
      id: `P${i + 1}`,
      path: r.path,
      etag: r.etag,
      ord: r.ord,
      heading,
      anchor: heading,
      ...(PDF.test(r.path) ? { page: r.startLine } : {}),
      startLine: r.startLine,
      endLine: r.endLine,
      text: r.text,
      tokens: estimateTokens(r.text) + PASSAGE_OVERHEAD_TOKENS,
    };
  });
}

/** The header of each passage (id, path, heading), in tokens: estimated high, as all estimates here. */
const PASSAGE_OVERHEAD_TOKENS = 20;

/** Every chunk of these notes as passages: notes in the order given, each note's chunks in order. */
export function passagesForPaths(ctx: OpContext, paths: readonly string[]): Passage[] {
  return toPassages(ctx.index.chunks.sourcesOf([...paths]));
}

/** Passages for chunk ids as search returns them ('<path>#<ord>'), in the order given. */
export function passagesForChunks(ctx: OpContext, chunkIds: readonly string[]): Passage[] {
  const refs = chunkIds.flatMap((id) => {
    const hash = id.lastIndexOf("#");
    const ord = Number(id.slice(hash + 1));
    return hash > 0 && Number.isInteger(ord) ? [{ path: id.slice(0, hash), ord }] : [];
  });
  return toPassages(ctx.index.chunks.sourcesAt(refs));
}

/** The line that ends a list of passages (src/ai/passages.ts): everything after it is instructions. */
export const PASSAGES_END = "[end of passages]";

/** A line of a note that would read as a passage header or the end of the list. */
const POSING = /^(\[P\d+\]|\[end of passages\])/gm;

/**
 * The passages as the model reads them, compactly (docs/decisions.md, "A compact passage
 * format"): a header line `[P3] path § heading`, the text, and after the last one a line that
 * ends the list. Line numbers stay with the runtime, which alone needs them. A line of a note
 * that would read as a header or as the end of the list is escaped with a backslash, so a note
 * cannot end its passage early and pose as instructions.
 */
export function renderPassages(passages: readonly Passage[]): string {
  if (passages.length === 0) return PASSAGES_END;
  const blocks = passages.map((p) => `${passageHeader(p.id, p.path, p.heading)}\n${p.text.replace(POSING, "\\$1")}`);
  return `${blocks.join("\n")}\n${PASSAGES_END}`;
}

/** A passage's header line: its id, its note and its section, on one line. */
export function passageHeader(id: string, path: string, heading: string | null): string {
  const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();
  return `[${id}] ${oneLine(path)}${heading ? ` § ${oneLine(heading)}` : ""}`;
}
