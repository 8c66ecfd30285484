/**
 * Link anchors (docs/obsidian.md, Anchors): does the `#Heading#Sub` or `#^block` of a link exist
 * in the note it resolves to? Obsidian's `resolveSubpath`: the subpath splits on `#` with empty
 * parts dropped; one part starting with `^` names a block (ids compare case-insensitively); any
 * other parts are a heading path, matched in document order, each heading through `stripHeading`
 * and deeper than the one before. A PDF's anchor is its page, `#page=N` (docs/documents.md):
 * it exists when the PDF has that many pages.
 */
import type { IndexStore } from "../index/storage/store.ts";
import { blockKey } from "../markdown/blocks.ts";
import { headingKey } from "../markdown/headings.ts";

export type Anchor = { kind: "heading"; path: string[] } | { kind: "block"; id: string } | { kind: "page"; page: number; raw: string };

/** What a note offers links to point at. */
export interface NoteAnchors {
  headings: readonly { level: number; text: string }[];
  /** Block ids, lowercased. */
  blocks: ReadonlySet<string>;
  /** A PDF's page count; undefined for a note or a DOCX. */
  pages?: number;
}

/** Obsidian's PDF anchor: `page=3`, perhaps with `&selection=…` or `&annotation=…` after it. */
const PAGE = /^page=(\d{1,9})(?:&.*)?$/i;

/** The anchor a subpath names; null when it names none indx can check (empty, a footnote `#[^1]`). */
export function parseAnchor(subpath: string): Anchor | null {
  const parts = subpath.split("#").filter((p) => p !== "");
  const [first] = parts;
  if (first === undefined) return null;
  if (parts.length === 1 && first.startsWith("^")) return { kind: "block", id: first.slice(1) };
  if (first.startsWith("[^")) return null;
  const page = parts.length === 1 ? PAGE.exec(first) : null;
  if (page) return { kind: "page", page: Number(page[1]), raw: first };
  return { kind: "heading", path: parts };
}

/** Whether the anchor exists; null when it names nothing indx can check in that file (a heading of a PDF). */
export function anchorExists(anchor: Anchor, note: NoteAnchors): boolean | null {
  if (note.pages !== undefined) return anchor.kind === "page" ? anchor.page >= 1 && anchor.page <= note.pages : null;
  if (anchor.kind === "block") return note.blocks.has(blockKey(anchor.id));
  // `#page=3` into a note or a DOCX is a heading of that name, as Obsidian reads it.
  const path = anchor.kind === "page" ? [anchor.raw] : anchor.path;
  const wanted = path.map(headingKey);
  let matched = 0;
  let level = 0;
  for (const h of note.headings) {
    if (h.level > level && headingKey(h.text) === wanted[matched]) {
      level = h.level;
      if (++matched === wanted.length) return true;
    }
  }
  return false;
}

/**
 * Answers "does this link's anchor resolve?" from the index, reading each target note's headings
 * and block ids once. Null when there is nothing to check: no anchor, an unresolved link, a target
 * that is neither a note nor an indexed document (`view.base#View`), or an anchor kind indx does
 * not index.
 */
export class AnchorChecker {
  private readonly notes = new Map<string, NoteAnchors | null>();

  constructor(private readonly index: IndexStore) {}

  resolves(subpath: string, target: string | null): boolean | null {
    if (subpath === "" || target === null) return null;
    const anchor = parseAnchor(subpath);
    if (anchor === null) return null;
    const note = this.anchorsOf(target);
    return note === null ? null : anchorExists(anchor, note);
  }

  private anchorsOf(path: string): NoteAnchors | null {
    let note = this.notes.get(path);
    if (note === undefined) {
      note = this.index.links.anchorsOf(path);
      this.notes.set(path, note);
    }
    return note;
  }
}
