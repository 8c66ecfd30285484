import { type Static, Type } from "@sinclair/typebox";
import type { IndexStore } from "../index/store.ts";
import { CompactMeta, compactMeta, Nullable } from "../ops/schemas.ts";

export const SearchResult = Type.Object({
  id: Type.String({ description: "Note id (its vault path). Pass to note_read." }),
  type: Type.Union([Type.Literal("note"), Type.Literal("chunk")]),
  path: Type.String(),
  title: Type.String(),
  heading: Nullable(Type.String({ description: "The best-matching heading of the note, null for text before any heading." })),
  heading_path: Type.Array(Type.String()),
  chunk_id: Type.String({ description: "The best chunk, '<path>#<index>'. Pass to chunk_get for just that section." }),
  line: Type.Integer({ description: "First line of the best chunk." }),
  snippet: Type.String({ description: "A short excerpt with **matches**; never a whole chunk (may be empty for tiny chunks)." }),
  score: Type.Number({ description: "0..1, higher is better." }),
  reason: Type.String(),
  matched_in: Type.Array(Type.String()),
  tags: Type.Array(Type.String()),
  meta: CompactMeta,
});
export type SearchResult = Static<typeof SearchResult>;

const SNIPPET_TOKENS = 14;

/** A note found by any mode, pointing at its best chunk, with its score already in 0..1. */
export interface RankedHit {
  fileId: number;
  chunkId: number;
  score: number;
  /** Overrides the reason prefix for this hit (e.g. "hybrid: lexical #1, semantic #3"). */
  reason?: string;
}

/** Turns ranked hits into the compact result shape (docs/contracts.md, Search), one query for the whole page. */
export function buildResults(index: IndexStore, hits: RankedHit[], match: string | null, cjk: string[], reasonPrefix = "lexical match"): SearchResult[] {
  if (hits.length === 0) return [];
  const ids = hits.map((h) => h.chunkId);
  const byChunk = new Map(index.chunks.hits(ids).map((r) => [r.chunkId, r]));
  const marks = match ? highlights(index, match, ids) : new Map<number, { matched: string[]; snippet: string }>();

  return hits.flatMap((h) => {
    const r = byChunk.get(h.chunkId);
    if (!r) return [];
    const headingPath = JSON.parse(r.headingPathJson) as string[];
    const m = marks.get(h.chunkId);
    let matched = m?.matched ?? [];
    let snippet = m?.snippet ?? "";
    if (!matched.length && cjk.length && cjk.some((t) => r.text.includes(t))) {
      matched = ["body"];
      snippet = cjkSnippet(r.text, cjk);
    }
    // A semantic hit may share no word with the query: show the start of its best chunk.
    if (!snippet && h.reason !== undefined) snippet = leadSnippet(r.text);
    if (countWords(r.text) <= SNIPPET_TOKENS) snippet = "";
    return [
      {
        id: r.path,
        type: "note" as const,
        path: r.path,
        title: r.title,
        heading: headingPath.length ? headingPath[headingPath.length - 1]! : null,
        heading_path: headingPath,
        chunk_id: `${r.path}#${r.ord}`,
        line: r.startLine,
        snippet,
        score: Math.round(h.score * 10000) / 10000,
        reason:
          h.reason !== undefined
            ? matched.length
              ? `${h.reason}; words in ${matched.join(", ")}`
              : h.reason
            : matched.length
              ? `${reasonPrefix} in ${matched.join(", ")}`
              : reasonPrefix,
        matched_in: matched,
        tags: JSON.parse(r.tagsJson) as string[],
        meta: compactMeta(r.frontmatterJson ? (JSON.parse(r.frontmatterJson) as Record<string, unknown>) : null, JSON.parse(r.aliasesJson) as string[]),
      },
    ];
  });
}

/** The columns each chunk matched in, and a body snippet when the body matched. */
function highlights(index: IndexStore, match: string, ids: number[]): Map<number, { matched: string[]; snippet: string }> {
  const out = new Map<number, { matched: string[]; snippet: string }>();
  for (const h of index.fts.highlights(match, ids, SNIPPET_TOKENS))
    out.set(h.chunkId, { matched: h.columns, snippet: oneLine(h.columns.includes("body") ? h.snippet : "") });
  return out;
}

function cjkSnippet(text: string, terms: string[]): string {
  for (const t of terms) {
    const at = text.indexOf(t);
    if (at < 0) continue;
    const start = Math.max(0, at - 30);
    const end = Math.min(text.length, at + t.length + 30);
    return oneLine(`${start > 0 ? "…" : ""}${text.slice(start, at)}**${t}**${text.slice(at + t.length, end)}${end < text.length ? "…" : ""}`);
  }
  return "";
}

function leadSnippet(text: string): string {
  const words = text
    .replace(/^#+\s.*$/gm, " ")
    .split(/\s+/)
    .filter(Boolean);
  return words.length > SNIPPET_TOKENS ? `${words.slice(0, SNIPPET_TOKENS).join(" ")}…` : "";
}

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();
const countWords = (s: string) => s.split(/\s+/).filter(Boolean).length;
