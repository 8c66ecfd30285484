import { parseNote } from "../../../markdown/parse.ts";
import type { OpContext } from "../../../ops/context.ts";
import { readNote } from "../../../vault/read.ts";

/** Outline entries one summary returns at most: a scope of thousands of notes must not return megabytes of headings. */
const MAX_OUTLINE = 500;

/** The headings of some notes, in note order, read from the files as they are now (no model involved). */
export function noteOutlines(ctx: OpContext, paths: readonly string[]): { heading: string; line: number; path: string }[] {
  const out: { heading: string; line: number; path: string }[] = [];
  for (const path of paths) {
    const note = readNote(ctx.vault, path, { allowLarge: true });
    for (const h of parseNote(note.text).headings) {
      if (out.length >= MAX_OUTLINE) return out;
      out.push({ heading: h.text, line: h.line, path: note.path });
    }
  }
  return out;
}
