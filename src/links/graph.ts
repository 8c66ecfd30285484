import type { Database } from "bun:sqlite";
import { type Static, Type } from "@sinclair/typebox";
import { Nullable } from "../ops/schemas.ts";

/** Link-graph queries over the index. Links include embeds and frontmatter links, as in Obsidian. */

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

export function backlinks(db: Database, path: string): Backlink[] {
  return db
    .query<{ source: string; source_title: string | null; line: number; raw: string; subpath: string; embed: number; syntax: string }, [string]>(
      `SELECT f.path AS source, n.title AS source_title, l.line, l.raw, l.subpath, l.embed, l.syntax
         FROM links l JOIN files f ON f.id = l.src_id LEFT JOIN notes n ON n.file_id = l.src_id
        WHERE l.dst_path = ? ORDER BY f.path, l.ord`,
    )
    .all(path)
    .map((r) => ({ ...r, source_title: r.source_title ?? r.source, embed: r.embed === 1 }));
}

export function forwardLinks(db: Database, path: string): ForwardLink[] {
  return db
    .query<
      {
        linkpath: string;
        subpath: string;
        display: string | null;
        raw: string;
        target: string | null;
        embed: number;
        syntax: string;
        line: number;
        prop: string | null;
      },
      [string]
    >(
      `SELECT l.linkpath, l.subpath, l.display, l.raw, l.dst_path AS target, l.embed, l.syntax, l.line, l.prop
         FROM links l JOIN files f ON f.id = l.src_id WHERE f.path = ? ORDER BY l.ord`,
    )
    .all(path)
    .map(({ prop, ...r }) => ({ ...r, resolved: r.target !== null, embed: r.embed === 1, ...(prop ? { property: prop } : {}) }));
}

export interface UnresolvedTarget {
  linkpath: string;
  count: number;
  sources: string[];
}

/** Broken links grouped by target, keyed as Obsidian keys unresolvedLinks (lowercase-insensitive, no .md). */
export function unresolvedLinks(db: Database): UnresolvedTarget[] {
  const rows = db
    .query<{ linkpath: string; source: string }, []>(
      `SELECT l.linkpath, f.path AS source FROM links l JOIN files f ON f.id = l.src_id
        WHERE l.dst_path IS NULL AND l.linkpath <> '' ORDER BY l.linkpath, f.path`,
    )
    .all();
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

/** Notes with no resolved link in or out (self-links do not count). */
export function orphanNotes(db: Database): { path: string; title: string }[] {
  return db
    .query<{ path: string; title: string }, []>(
      `SELECT f.path, n.title FROM files f JOIN notes n ON n.file_id = f.id
        WHERE f.kind = 'note'
          AND NOT EXISTS (SELECT 1 FROM links l WHERE l.dst_path = f.path AND l.src_id <> f.id)
          AND NOT EXISTS (SELECT 1 FROM links l WHERE l.src_id = f.id AND l.dst_path IS NOT NULL AND l.dst_path <> f.path)
        ORDER BY f.path`,
    )
    .all();
}
