import type { Database } from "bun:sqlite";
import { keysForFile } from "../../../vault/link-resolver.ts";
import { decodeNoteText, NoteTextReader } from "../note-text.ts";
import { LINK_DST_SQL, LINK_KEY_SQL, LINK_RAW_SQL, LINK_SYNTAX_SQL } from "../schema.ts";

/**
 * The one definition of an unresolved link (alias `l` for links): no file matched its target.
 * An empty linkpath (`[[#Heading]]`) points into its own note and is never unresolved.
 */
const UNRESOLVED = "l.dst_path IS NULL AND l.linkpath <> ''";

/**
 * The keys (src_id, ord) of the links that may resolve to the path ?1, given ?2, the JSON array of
 * its keysForFile: a link resolves only to a file its key names (read through links_key), or,
 * written `[[#Heading]]`, to its own note. No index on dst_path: callers test LINK_DST_SQL = ?1.
 */
const LINKS_TO = `(SELECT l.src_id, l.ord FROM links l WHERE ${LINK_KEY_SQL} IN (SELECT value FROM json_each(?2))
   UNION ALL SELECT src_id, ord FROM links WHERE src_id = (SELECT id FROM files WHERE path = ?1) AND linkpath = '')`;

/** A wiki or Markdown link in a note's text to another note, with the line it stands in. */
export interface LinkContext {
  srcId: number;
  dstId: number;
  raw: string;
  /** The link's line: its chunk's text and the chunk's first line. */
  text: string;
  line: number;
  startLine: number;
}

/** A link, embed or frontmatter link that resolves to a file. */
export interface BacklinkRow {
  source: string;
  source_title: string;
  line: number;
  raw: string;
  subpath: string;
  embed: boolean;
  syntax: string;
  /** The top-level frontmatter property holding the link; null for body links. */
  property: string | null;
}

export interface ForwardLinkRow {
  linkpath: string;
  subpath: string;
  display: string | null;
  raw: string;
  /** Resolved vault path; null when unresolved. */
  target: string | null;
  embed: boolean;
  syntax: string;
  line: number;
  /** The frontmatter key holding the link, as Obsidian caches it (`up`, `related.0`); null for body links. */
  key: string | null;
  /** The top-level frontmatter property holding the link; null for body links. */
  property: string | null;
}

/** One unresolved link: its target as written and the note it is in. */
export interface UnresolvedLink {
  linkpath: string;
  source: string;
}

/** A link with a `#heading` or `#^block` anchor whose file resolves to a note. */
export interface AnchoredLink {
  source: string;
  line: number;
  raw: string;
  subpath: string;
  target: string;
}

/** The headings (in document order) and lowercased block ids of a note. */
export interface NoteAnchorRows {
  headings: { level: number; text: string }[];
  blocks: Set<string>;
  /** A PDF's page count (its anchors are `#page=N`); undefined for a note or a DOCX. */
  pages?: number;
}

export interface NoteTitle {
  path: string;
  title: string;
}

/** The link graph. Links include embeds and frontmatter links, as in Obsidian. */
export class LinkQueries {
  constructor(private readonly db: Database) {}

  /**
   * Up to `limit` links between two different notes, spread over the vault in an order that does
   * not depend on how it was indexed (a multiplicative hash of the link's note id and place): self-supervised
   * queries for measuring search (src/search/fusion-weight.ts).
   */
  contexts(limit: number): LinkContext[] {
    const reader = new NoteTextReader();
    return this.db
      .query<Omit<LinkContext, "text"> & { ord: number; noteText: Uint8Array }, [number]>(
        `SELECT l.src_id AS srcId, d.id AS dstId, ${LINK_RAW_SQL} AS raw, l.line, c.start_line AS startLine, c.ord, n.text AS noteText
           FROM (SELECT src_id, ord FROM links l WHERE dst_path IS NOT NULL AND embed = 0 AND ${LINK_SYNTAX_SQL} <> 'frontmatter'
                  ORDER BY ((src_id * 65536 + ord) * 2654435761) % 4294967296 LIMIT ?1) pick
           JOIN links l ON l.src_id = pick.src_id AND l.ord = pick.ord
           JOIN files d ON d.path = ${LINK_DST_SQL} AND d.kind = 'note' AND d.id <> l.src_id
           JOIN chunks c ON c.file_id = l.src_id AND l.line BETWEEN c.start_line AND c.end_line
           JOIN notes n ON n.file_id = l.src_id`,
      )
      .all(limit)
      .map(({ ord, noteText, ...rest }) => ({ ...rest, text: reader.of(rest.srcId, noteText).chunks[ord]?.text ?? "" }));
  }

  backlinks(path: string): BacklinkRow[] {
    return this.db
      .query<Omit<BacklinkRow, "embed" | "source_title"> & { source_title: string | null; embed: number }, [string, string]>(
        `SELECT f.path AS source, n.title AS source_title, l.line, ${LINK_RAW_SQL} AS raw, l.subpath, l.embed, ${LINK_SYNTAX_SQL} AS syntax, l.rel AS property
           FROM ${LINKS_TO} k JOIN links l ON l.src_id = k.src_id AND l.ord = k.ord
           JOIN files f ON f.id = l.src_id LEFT JOIN notes n ON n.file_id = l.src_id
          WHERE ${LINK_DST_SQL} = ?1 ORDER BY f.path, l.ord`,
      )
      .all(path, JSON.stringify(keysForFile(path)))
      .map((r) => ({ ...r, source_title: r.source_title ?? r.source, embed: r.embed === 1 }));
  }

  forward(path: string): ForwardLinkRow[] {
    return this.db
      .query<Omit<ForwardLinkRow, "embed"> & { embed: number }, [string]>(
        `SELECT l.linkpath, l.subpath, l.display, ${LINK_RAW_SQL} AS raw, ${LINK_DST_SQL} AS target, l.embed, ${LINK_SYNTAX_SQL} AS syntax, l.line, l.prop AS key, l.rel AS property
           FROM links l JOIN files f ON f.id = l.src_id WHERE f.path = ? ORDER BY l.ord`,
      )
      .all(path)
      .map((r) => ({ ...r, embed: r.embed === 1 }));
  }

  /** Every link with an anchor into a note, by source and order: the candidates for broken anchors. */
  anchored(): AnchoredLink[] {
    return this.db
      .query<AnchoredLink, []>(
        `SELECT f.path AS source, l.line, ${LINK_RAW_SQL} AS raw, l.subpath, d.path AS target
           FROM links l JOIN files f ON f.id = l.src_id
           JOIN files d ON d.path = ${LINK_DST_SQL} AND (d.kind = 'note' OR d.id IN (SELECT file_id FROM documents))
          WHERE l.subpath <> '' ORDER BY f.path, l.ord`,
      )
      .all();
  }

  /**
   * What links into `path` can point at: a note's headings and blocks, a DOCX's headings, a PDF's
   * pages (docs/documents.md); null when it is none of those.
   */
  anchorsOf(path: string): NoteAnchorRows | null {
    const row = this.db
      .query<{ noteText: Uint8Array | null; blocks: string; format: string | null; pages: number | null }, [string]>(
        `SELECT n.text AS noteText, (SELECT json_group_array(b.id_lower) FROM blocks b WHERE b.file_id = f.id) AS blocks, d.format, d.pages
           FROM files f LEFT JOIN notes n ON n.file_id = f.id LEFT JOIN documents d ON d.file_id = f.id
          WHERE f.path = ? AND (f.kind = 'note' AND n.file_id IS NOT NULL OR d.file_id IS NOT NULL)`,
      )
      .get(path);
    if (!row) return null;
    const headings = row.noteText ? decodeNoteText(row.noteText).outline : [];
    return { headings, blocks: new Set(JSON.parse(row.blocks) as string[]), ...(row.format === "pdf" ? { pages: row.pages ?? 0 } : {}) };
  }

  /** Every unresolved link, by target as written, then by source. */
  unresolved(): UnresolvedLink[] {
    return this.db
      .query<UnresolvedLink, []>(
        `SELECT l.linkpath, f.path AS source FROM links l JOIN files f ON f.id = l.src_id
          WHERE ${UNRESOLVED} ORDER BY l.linkpath, f.path`,
      )
      .all();
  }

  unresolvedCount(): number {
    return this.db.query<{ n: number }, []>(`SELECT count(*) AS n FROM links l WHERE ${UNRESOLVED}`).get()?.n ?? 0;
  }

  /**
   * Notes with no resolved link in or out (self-links do not count). With no index on a link's
   * resolved path, each note's own links rule out most notes (one seek per note, in key order), and
   * only the notes left are looked up by their keys (links_key) for a link in from another note.
   */
  orphans(): NoteTitle[] {
    const noLinkOut = this.db
      .query<{ id: number; path: string }, []>(
        `SELECT f.id, f.path FROM files f
          WHERE f.kind = 'note' AND NOT EXISTS (SELECT 1 FROM links l WHERE l.src_id = f.id AND l.dst_path IS NOT NULL AND ${LINK_DST_SQL} <> f.path)`,
      )
      .all();
    const candidates = JSON.stringify(noLinkOut.map(({ id, path }) => ({ id, keys: keysForFile(path) })));
    return this.db
      .query<NoteTitle, [string]>(
        `SELECT f.path, n.title FROM json_each(?) c JOIN files f ON f.id = c.value ->> 'id' JOIN notes n ON n.file_id = f.id
          WHERE NOT EXISTS (SELECT 1 FROM links l WHERE ${LINK_KEY_SQL} IN (SELECT value FROM json_each(c.value, '$.keys'))
                              AND l.src_id <> f.id AND ${LINK_DST_SQL} = f.path)
          ORDER BY f.path`,
      )
      .all(candidates);
  }

  /** Notes with at least one link resolved to `path` (including `path` itself for `[[#H]]`). */
  sourcesLinkingTo(path: string): string[] {
    return this.db
      .query<{ path: string }, [string, string]>(
        `SELECT DISTINCT f.path FROM ${LINKS_TO} k JOIN links l ON l.src_id = k.src_id AND l.ord = k.ord
           JOIN files f ON f.id = l.src_id WHERE ${LINK_DST_SQL} = ?1 ORDER BY f.path`,
      )
      .all(path, JSON.stringify(keysForFile(path)))
      .map((r) => r.path);
  }

  /** Notes with a resolved link whose target key is one of `keys` (links a new file of that name could capture). */
  sourcesByTargetKey(keys: string[]): string[] {
    const out = new Set<string>();
    const q = this.db.query<{ path: string }, [string]>(
      `SELECT DISTINCT f.path FROM links l JOIN files f ON f.id = l.src_id WHERE ${LINK_KEY_SQL} = ? AND l.dst_path IS NOT NULL`,
    );
    for (const k of keys) for (const r of q.all(k)) out.add(r.path);
    return [...out].sort();
  }
}
