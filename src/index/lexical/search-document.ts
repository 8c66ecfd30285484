import type { Span } from "./match-windows.ts";

/**
 * What full-text search indexes of a note, one row per note: the writer indexes it, and search
 * makes it again for the notes it shows, to mark their matches (the index keeps no content).
 * The title counts once, in its own column: a heading that repeats it (the usual `# Title`)
 * leaves the headings, and its line the body.
 */
export interface SearchDocument {
  title: string;
  aliases: string;
  tags: string;
  headings: string;
  /** The note's chunks joined by a blank line, less a first line that repeats the title. */
  body: string;
  /** Characters of the first chunk that the body leaves out (its `# Title` line). */
  bodyShift: number;
}

/** The columns of the full-text table, in order: a search document's fields. */
export const FTS_COLUMNS = ["title", "aliases", "tags", "headings", "body"] as const;
export type FtsColumn = (typeof FTS_COLUMNS)[number];

/** Where a note matched an FTS5 expression: its columns, and each match in its body. */
export interface NoteHighlight {
  fileId: number;
  columns: FtsColumn[];
  /** Where the search document's body matched, in order (character offsets). */
  spans: Span[];
}

/** Chunks in a note's body are joined by this. */
export const CHUNK_JOIN = "\n\n";

/**
 * Tells whether a heading is the title, both trimmed and lowercased. Most headings are not, and
 * most of those differ in length: lowercasing keeps a string's length but for İ (U+0130, which
 * becomes i and a combining dot), so those are told apart without lowercasing them. Search does
 * this for every heading of every note it shows.
 */
const sameAsTitle = (title: string) => {
  const t = title.trim().toLowerCase();
  return (heading: string) => {
    const trimmed = heading.trim();
    if (trimmed.length !== t.length && !trimmed.includes("\u0130")) return false;
    return trimmed.toLowerCase() === t;
  };
};

/** The headings column: every heading but one that repeats the title. */
export function searchHeadings(title: string, headings: string[]): string {
  const same = sameAsTitle(title);
  return headings.filter((h) => !same(h)).join(" ");
}

export function searchDocument(note: { title: string; aliases: string[]; tags: string[]; headings: string; texts: string[] }): SearchDocument {
  const titleLine = /^#{1,6}[ \t]+(.*?)[ \t#]*(?:\n|$)/.exec(note.texts[0] ?? "");
  const bodyShift = titleLine?.[1] !== undefined && sameAsTitle(note.title)(titleLine[1]) ? titleLine[0].length : 0;
  return {
    title: note.title,
    aliases: note.aliases.join(" "),
    tags: note.tags.map((t) => t.replaceAll("/", " ")).join(" "),
    headings: note.headings,
    body: note.texts.join(CHUNK_JOIN).slice(bodyShift),
    bodyShift,
  };
}
