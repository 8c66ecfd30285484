import { parseNote } from "../../../src/markdown/parse.ts";

/** Body tags of a note, in order. */
export const bodyTags = (text: string): string[] =>
  parseNote(text)
    .tagOccurrences.filter((t) => t.source === "body")
    .map((t) => t.tag);

/** Links of a note, as `raw` strings. */
export const rawLinks = (text: string): string[] => parseNote(text).links.map((l) => l.raw);

export const headingTexts = (text: string): string[] => parseNote(text).headings.map((h) => h.text);
