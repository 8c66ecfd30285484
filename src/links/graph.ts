import { type Static, Type } from "@sinclair/typebox";
import type { IndexStore } from "../index/store.ts";
import { Nullable } from "../ops/schemas.ts";

/** The link graph as operations show it. Links include embeds and frontmatter links, as in Obsidian. */

export const Backlink = Type.Object({
  source: Type.String({ description: "Path of the note that links here." }),
  source_title: Type.String(),
  line: Type.Integer(),
  raw: Type.String({ description: "The link as written, e.g. [[Note#Heading|alias]]." }),
  subpath: Type.String(),
  embed: Type.Boolean(),
  syntax: Type.String(),
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
  property: Type.Optional(Type.String()),
});
export type ForwardLink = Static<typeof ForwardLink>;

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
