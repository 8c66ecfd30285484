import { type Static, Type } from "@sinclair/typebox";
import { searchDocument } from "../index/lexical/search-document.ts";
import { chunkIdOf } from "../index/storage/chunk-keys.ts";
import { frontmatterOf } from "../index/storage/json-columns.ts";
import type { NoteSection, NoteSections } from "../index/storage/queries/chunks.ts";
import type { IndexStore } from "../index/storage/store.ts";
import { CompactMeta, compactMeta, Nullable } from "../ops/schemas.ts";
import { bestSection } from "./sections.ts";

export const SearchResult = Type.Object({
  id: Type.String({ description: "Note id (its vault path). Pass to note_read." }),
  type: Type.Union([Type.Literal("note"), Type.Literal("chunk")]),
  path: Type.String(),
  title: Type.String(),
  heading: Nullable(Type.String({ description: "The best-matching heading of the note, null for text before any heading." })),
  heading_path: Type.Array(Type.String()),
  chunk_id: Type.String({ description: "The best chunk, '<path>#<index>'. Pass to chunk_get for just that section." }),
  line: Type.Integer({ description: "First line of the best chunk." }),
  snippet: Type.String({
    description:
      "A short excerpt (at most 14 words) with **matches**; when the match is only in the title, aliases or tags, the opening of the section, unmarked. Empty only for a note with no text.",
  }),
  score: Type.Number({ description: "0..1, higher is better." }),
  reason: Type.String(),
  matched_in: Type.Array(Type.String()),
  tags: Type.Array(Type.String()),
  meta: CompactMeta,
});
export type SearchResult = Static<typeof SearchResult>;

const SNIPPET_TOKENS = 14;

/** A note found by any mode, with its score already in 0..1. */
export interface RankedHit {
  fileId: number;
  /** The section to show; null: the one that matches the query best (bestSection). */
  chunkId: number | null;
  score: number;
  /** Overrides the reason prefix for this hit (e.g. "hybrid: lexical #1, semantic #3"). */
  reason?: string;
}

interface Shown {
  note: NoteSections;
  chunkId: number;
  section: NoteSection;
  snippet: string;
  matched: string[];
}

/** Turns ranked hits into the compact result shape (docs/contracts.md, Search), a few queries for the whole page. */
export function buildResults(index: IndexStore, hits: RankedHit[], match: string | null, cjk: string[], reasonPrefix = "lexical match"): SearchResult[] {
  if (hits.length === 0) return [];
  const shown = sectionsToShow(index, hits, match, cjk);

  return hits.flatMap((h) => {
    const s = shown.get(h.fileId);
    if (!s) return [];
    const { note, section, matched } = s;
    const { headingPath, ord } = section;
    // A hit whose match is only in its title, aliases or tags (or, semantic, shares no word with
    // the query) shows the opening of its section, unmarked: something to judge it by.
    const snippet = s.snippet || openingSnippet(note.sections, section.ord);
    return [
      {
        id: note.path,
        type: "note" as const,
        path: note.path,
        title: note.title,
        heading: headingPath.at(-1) ?? null,
        heading_path: headingPath,
        chunk_id: `${note.path}#${ord}`,
        line: section.startLine,
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
        tags: note.tags,
        meta: compactMeta(frontmatterOf(note), note.aliases),
      },
    ];
  });
}

/**
 * For each hit, the section it shows, its snippet and the columns the note matched in ("body"
 * when that section's text matched): the hit's own section, else the best-matching one, else
 * the first with a CJK term, else the first.
 */
export function sectionsToShow(index: IndexStore, hits: { fileId: number; chunkId: number | null }[], match: string | null, cjk: string[]): Map<number, Shown> {
  const notes = new Map(index.chunks.noteSections(hits.map((h) => h.fileId)).map((n) => [n.fileId, n]));
  const docs = [...notes.values()].map((n) => ({ fileId: n.fileId, ...searchDocument({ ...n, texts: n.sections.map((s) => s.text) }) }));
  const bodies = new Map(docs.map((d) => [d.fileId, d]));
  const marks = new Map(match ? index.fts.highlights(match, docs).map((m) => [m.fileId, m]) : []);
  const out = new Map<number, Shown>();
  for (const h of hits) {
    const note = notes.get(h.fileId);
    if (!note) continue;
    const own = note.sections;
    const mark = marks.get(h.fileId);
    const doc = bodies.get(h.fileId);
    const lexical = mark && doc ? bestSection(own, doc.body, mark.spans, doc.bodyShift, SNIPPET_TOKENS) : null;
    const columns = (mark?.columns ?? []).filter((c) => c !== "body");
    // A note with no text (only properties) is shown as its start: its first, empty, section.
    const chunkId =
      h.chunkId ?? lexical?.chunkId ?? own.find((s) => cjk.some((t) => s.text.includes(t)))?.chunkId ?? own[0]?.chunkId ?? chunkIdOf(note.fileId, 0);
    const section = own.find((s) => s.chunkId === chunkId) ?? (own.length ? undefined : { chunkId, ord: 0, headingPath: [], text: "", startLine: 1 });
    if (!section) continue;
    if (lexical?.matched && lexical.chunkId === chunkId) {
      out.set(h.fileId, { note, chunkId, section, snippet: oneLine(lexical.snippet), matched: [...columns, "body"] });
      continue;
    }
    const cjkHit = cjk.some((t) => section.text.includes(t));
    out.set(h.fileId, {
      note,
      chunkId,
      section,
      snippet: cjkHit ? cjkSnippet(section.text, cjk) : "",
      matched: cjkHit && !columns.length ? ["body"] : columns,
    });
  }
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

/**
 * The first SNIPPET_TOKENS words of a note from its section `ord` on, heading lines left out
 * (the result names its heading), running into the next sections when that one has fewer words
 * (a section that is only its heading); `…` where the text goes on.
 */
function openingSnippet(sections: NoteSection[], ord: number): string {
  const words: string[] = [];
  for (const section of sections.slice(
    Math.max(
      0,
      sections.findIndex((x) => x.ord === ord),
    ),
  )) {
    for (const word of section.text.replace(/^#{1,6}[ \t].*$/gm, " ").split(/\s+/))
      if (word) {
        if (words.length === SNIPPET_TOKENS) return `${words.join(" ")}…`;
        words.push(word);
      }
  }
  return words.join(" ");
}

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();
