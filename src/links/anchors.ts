/**
 * Link anchors (docs/obsidian.md, Anchors): does the `#Heading#Sub` or `#^block` of a link exist
 * in the note it resolves to? Obsidian's `resolveSubpath`: the subpath splits on `#` with empty
 * parts dropped; one part starting with `^` names a block (ids compare case-insensitively); any
 * other parts are a heading path, matched in document order, each heading through `stripHeading`
 * and deeper than the one before.
 */
import type { IndexStore } from "../index/storage/store.ts";
import { blockKey } from "../markdown/blocks.ts";
import { headingKey } from "../markdown/headings.ts";

export type Anchor = { kind: "heading"; path: string[] } | { kind: "block"; id: string };

/** What a note offers links to point at. */
export interface NoteAnchors {
  headings: readonly { level: number; text: string }[];
  /** Block ids, lowercased. */
  blocks: ReadonlySet<string>;
}

/** The anchor a subpath names; null when it names none indx can check (empty, a footnote `#[^1]`). */
export function parseAnchor(subpath: string): Anchor | null {
  const parts = subpath.split("#").filter((p) => p !== "");
  const [first] = parts;
  if (first === undefined) return null;
  if (parts.length === 1 && first.startsWith("^")) return { kind: "block", id: first.slice(1) };
  if (first.startsWith("[^")) return null;
  return { kind: "heading", path: parts };
}

export function anchorExists(anchor: Anchor, note: NoteAnchors): boolean {
  if (anchor.kind === "block") return note.blocks.has(blockKey(anchor.id));
  const wanted = anchor.path.map(headingKey);
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
 * that is not a note (`file.pdf#page=3`, `view.base#View`), or an anchor kind indx does not index.
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
