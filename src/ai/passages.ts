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
  /** 1-based, inclusive, in the note's file. */
  startLine: number;
  endLine: number;
  text: string;
  tokens: number;
}

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
      startLine: r.startLine,
      endLine: r.endLine,
      text: r.text,
      tokens: estimateTokens(r.text) + PASSAGE_OVERHEAD_TOKENS,
    };
  });
}

/** The tag around each passage (id, path, heading, lines), in tokens. */
const PASSAGE_OVERHEAD_TOKENS = 40;

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

const attr = (s: string) => s.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll("\n", " ");

/**
 * The passages as the model reads them. The closing tag is neutralised inside the text, so a
 * note cannot end its passage early and pose as instructions.
 */
export function renderPassages(passages: readonly Passage[]): string {
  return passages
    .map(
      (p) =>
        `<passage id="${p.id}" path="${attr(p.path)}"${p.heading ? ` heading="${attr(p.heading)}"` : ""} lines="${p.startLine}-${p.endLine}">\n${p.text.replaceAll("</passage>", "</ passage>")}\n</passage>`,
    )
    .join("\n");
}
