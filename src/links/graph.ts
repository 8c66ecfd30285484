import { type Static, Type } from "@sinclair/typebox";
import type { BacklinkRow, ForwardLinkRow } from "../index/storage/queries/links.ts";
import type { IndexStore } from "../index/storage/store.ts";
import { Nullable } from "../ops/schemas.ts";
import { AnchorChecker, parseAnchor } from "./anchors.ts";
import type { TypedLinks } from "./typed.ts";

/** The link graph as operations show it. Links include embeds and frontmatter links, as in Obsidian. */

const Rel = Type.String({
  description: "The typed relation: the frontmatter property holding the link (`up`, `related`); absent for body links (config links.typed_keys).",
});

export const Backlink = Type.Object({
  source: Type.String({ description: "Path of the note that links here." }),
  source_title: Type.String(),
  line: Type.Integer(),
  raw: Type.String({ description: "The link as written, e.g. [[Note#Heading|alias]]." }),
  subpath: Type.String(),
  embed: Type.Boolean(),
  syntax: Type.String(),
  rel: Type.Optional(Rel),
});
export type Backlink = Static<typeof Backlink>;

export const ForwardLink = Type.Object({
  linkpath: Type.String({ description: "Target as written, without subpath." }),
  subpath: Type.String(),
  display: Nullable(Type.String()),
  raw: Type.String(),
  target: Nullable(Type.String({ description: "Resolved vault path; null when unresolved." })),
  resolved: Type.Boolean(),
  embed: Type.Boolean(),
  syntax: Type.String(),
  line: Type.Integer(),
  property: Type.Optional(Type.String({ description: "The frontmatter key holding the link, as Obsidian caches it: `up`, or `related.0` for a list item." })),
  rel: Type.Optional(Rel),
  anchor_resolved: Type.Optional(
    Type.Boolean({
      description:
        "Whether the link's #heading or #^block exists in its target note; absent without an anchor, an unresolved target or a target that is not a note.",
    }),
  ),
});
export type ForwardLink = Static<typeof ForwardLink>;

/** A link out of a note as operations show it: its typed relation and whether its anchor resolves. */
export function toForwardLink(row: ForwardLinkRow, typed: TypedLinks, anchors: AnchorChecker): ForwardLink {
  const { key, property, target, ...rest } = row;
  const rel = typed.relOf(property);
  const anchorResolved = anchors.resolves(row.subpath, target);
  return {
    ...rest,
    target,
    resolved: target !== null,
    ...(key ? { property: key } : {}),
    ...(rel ? { rel } : {}),
    ...(anchorResolved === null ? {} : { anchor_resolved: anchorResolved }),
  };
}

export function toBacklink(row: BacklinkRow, typed: TypedLinks): Backlink {
  const { property, ...rest } = row;
  const rel = typed.relOf(property);
  return rel ? { ...rest, rel } : rest;
}

export interface UnresolvedTarget {
  linkpath: string;
  count: number;
  sources: string[];
}

/** Broken links grouped by target, keyed as Obsidian keys unresolvedLinks (lowercase-insensitive, no .md). */
export function unresolvedLinks(index: IndexStore): UnresolvedTarget[] {
  const rows = index.links.unresolved();
  const byKey = new Map<string, UnresolvedTarget>();
  for (const r of rows) {
    const name = r.linkpath.replace(/\.md$/i, "");
    const key = name.toLowerCase();
    let t = byKey.get(key);
    if (!t) byKey.set(key, (t = { linkpath: name, count: 0, sources: [] }));
    t.count++;
    if (t.sources[t.sources.length - 1] !== r.source) t.sources.push(r.source);
  }
  return [...byKey.values()].sort((a, b) => b.count - a.count || a.linkpath.localeCompare(b.linkpath));
}

export const BrokenAnchor = Type.Object({
  source: Type.String({ description: "The note holding the link." }),
  line: Type.Integer(),
  raw: Type.String({ description: "The link as written." }),
  target: Type.String({ description: "The note (or PDF, DOCX) the link resolves to." }),
  subpath: Type.String({ description: "The anchor as written: #Heading, #A#B, #^block, or a PDF's #page=N." }),
  kind: Type.Union([Type.Literal("heading"), Type.Literal("block"), Type.Literal("page")], {
    description: "page: a PDF page past its last (docs/documents.md).",
  }),
});
export type BrokenAnchor = Static<typeof BrokenAnchor>;

/**
 * Links whose note resolves but whose heading or block does not exist in it, by source and
 * position. Obsidian still counts these links as resolved (docs/obsidian.md, Anchors).
 */
export function brokenAnchors(index: IndexStore): BrokenAnchor[] {
  const checker = new AnchorChecker(index);
  return index.links.anchored().flatMap((l) => {
    const anchor = parseAnchor(l.subpath);
    if (anchor === null || checker.resolves(l.subpath, l.target) !== false) return [];
    // A page anchor into a note or a DOCX is checked as a heading of that name (anchorExists).
    const kind = anchor.kind === "page" && !l.target.toLowerCase().endsWith(".pdf") ? "heading" : anchor.kind;
    return [{ ...l, kind }];
  });
}
