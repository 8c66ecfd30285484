import { IndxError } from "../../core/errors.ts";

/**
 * The index schema. Everything here is derived from the vault and can be rebuilt; bump
 * SCHEMA_VERSION on any change so an old index is reported as index_incompatible, never misread.
 */
export const SCHEMA_VERSION = 11;

/** How notes_fts splits and folds words; search marks matches with the same tokenizer (src/index/storage/queries/fts.ts). */
export const FTS_TOKENIZE = "porter unicode61 remove_diacritics 2";

const META_SQL = "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;";

/** The full-text index of notes (src/index/storage/queries/fts.ts reads its posting lists too: src/index/lexical/fts5-postings.ts). */
export const NOTES_FTS_SQL = `CREATE VIRTUAL TABLE notes_fts USING fts5(
  title, aliases, tags, headings, body,
  content = '', contentless_delete = 1,
  tokenize = '${FTS_TOKENIZE}'
);`;

/** The tables derived from the vault's files: what a rebuild drops and makes again. */
export const DATA_SQL = `
CREATE TABLE files (
  id         INTEGER PRIMARY KEY,
  path       TEXT NOT NULL UNIQUE,
  kind       TEXT NOT NULL,           -- note | canvas | base | attachment
  size       INTEGER NOT NULL,
  mtime_ms   INTEGER NOT NULL,
  etag       TEXT                     -- xxHash64 of the bytes; NULL for attachments (hashed on demand)
);

CREATE TABLE notes (
  file_id     INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
  title       TEXT NOT NULL,
  aliases     TEXT NOT NULL,          -- JSON array
  tags        TEXT NOT NULL,          -- JSON array, first spelling of each tag
  frontmatter TEXT,                   -- JSON object or NULL
  fm_error    TEXT,
  status      TEXT NOT NULL,          -- ok | too_large | binary
  tasks       INTEGER NOT NULL,       -- how many tasks (checkbox items) it has
  text        BLOB                    -- the chunks' text and headings, compressed (src/index/storage/note-text.ts); NULL unless ok
);

CREATE TABLE links (
  src_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  ord        INTEGER NOT NULL,
  embed      INTEGER NOT NULL,
  syntax     TEXT,                    -- markdown | frontmatter; NULL for wiki (LINK_SYNTAX_SQL)
  linkpath   TEXT NOT NULL,
  subpath    TEXT NOT NULL,
  display    TEXT,
  raw        TEXT,                    -- NULL for a wiki link written the usual way (LINK_RAW_SQL makes it again)
  line       INTEGER NOT NULL,
  col_offset INTEGER NOT NULL,
  prop       TEXT,                    -- frontmatter links: the key as Obsidian caches it (up, related.0)
  rel        TEXT,                    -- frontmatter links: the top-level property (related), a typed relation
  target_key TEXT,                    -- lowercased file name the link can match (LINK_KEY_SQL); NULL when lower(linkpath) is it
  dst_path   TEXT,                    -- resolved vault path (LINK_DST_SQL), NULL when unresolved
  PRIMARY KEY (src_id, ord)
) WITHOUT ROWID;

-- One row per tag spelling a note uses, with how often it uses it.
CREATE TABLE tags (
  file_id   INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  tag       TEXT NOT NULL,
  tag_lower TEXT NOT NULL,
  uses      INTEGER NOT NULL,
  PRIMARY KEY (file_id, tag)
) WITHOUT ROWID;

CREATE TABLE properties (
  file_id   INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  ord       INTEGER NOT NULL,         -- its place in the frontmatter
  key_lower TEXT NOT NULL,            -- the key lowercased as JavaScript does (property names are case-insensitive)
  key       TEXT,                     -- the key as written, NULL when it is key_lower (PROPERTY_KEY_SQL)
  -- What base filters prefilter on (src/bases/prefilter.ts), NULL when the value is of another
  -- kind; the value itself is read from notes.frontmatter:
  num       REAL,                     -- a number
  text      TEXT,                     -- a string, but not a wikilink
  day       TEXT,                     -- a string that reads as a date: its day as written (YYYY-MM-DD)
  link      TEXT,                     -- a wikilink ('[[x]]', spaces around allowed): its link path
  bool      INTEGER,                  -- a boolean: 1 or 0
  PRIMARY KEY (file_id, ord)
) WITHOUT ROWID;

CREATE TABLE blocks (
  file_id  INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  id_lower TEXT NOT NULL,
  id       TEXT NOT NULL,
  line     INTEGER NOT NULL
);

-- One row per PDF or DOCX whose text extraction ran (docs/documents.md): its sections are the
-- file's notes and chunks rows (a PDF's chunk ord is its page less one); this says how many pages
-- the file has (anchors past the last are broken) and why its text is missing or partial.
CREATE TABLE documents (
  file_id  INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
  format   TEXT NOT NULL,           -- pdf | docx
  pages    INTEGER NOT NULL,        -- a PDF's page count; 0 for DOCX
  problem  TEXT,                    -- NULL, or encrypted | image_only | malformed | too_large | timeout | memory | truncated
  message  TEXT                     -- the problem in words
);

-- A chunk's id is (file_id, ord) in one number (src/index/storage/chunk-keys.ts).
CREATE TABLE chunks (
  file_id      INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  ord          INTEGER NOT NULL,      -- its place in the note and in notes.text
  start_line   INTEGER NOT NULL,
  end_line     INTEGER NOT NULL,
  hash         INTEGER NOT NULL,      -- content hash as a 64-bit integer: the key for embeddings, so renames never re-embed
  PRIMARY KEY (file_id, ord)
) WITHOUT ROWID;

-- The Han, Kana and Hangul runs of each note as overlapping character pairs (src/core/cjk.ts): a
-- word inside a run is found by the phrase of its pairs. No content: only the index is kept.
CREATE VIRTUAL TABLE cjk_fts USING fts5(
  grams, content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 0'
);

-- One row per note (src/index/lexical/search-document.ts). No content: the text is in notes.text, and
-- search marks the matches of the notes it shows itself.
${NOTES_FTS_SQL}
`;

export const SCHEMA_SQL = `${META_SQL}\n${DATA_SQL}`;

/**
 * DROP statements for the data tables, children first: dropping them in this order never deletes
 * a row that another table still references, so no foreign-key action runs (and dropping
 * notes_fts takes its FTS5 shadow tables with it).
 */
export const DROP_DATA_SQL = [...DATA_SQL.matchAll(/CREATE (?:VIRTUAL )?TABLE (\w+)/g)].map((m) => `DROP TABLE ${m[1]}`).reverse();

/**
 * Secondary indexes, kept apart so a first build can load rows first and index them once at the
 * end (much cheaper than maintaining them row by row).
 */
export const INDEX_SQL = [
  "CREATE INDEX IF NOT EXISTS links_key ON links(coalesce(target_key, lower(linkpath)));",
  "CREATE INDEX IF NOT EXISTS tags_tag ON tags(tag_lower);",
  "CREATE INDEX IF NOT EXISTS blocks_file ON blocks(file_id);",
  // The prefilter reads file ids straight from these (src/index/storage/queries/candidates.ts): each
  // entry carries the primary key. A typed column holds a value in few rows, so its index keeps
  // only those (every test on it implies IS NOT NULL, which lets SQLite use a partial index).
  "CREATE INDEX IF NOT EXISTS properties_key ON properties(key_lower);",
  "CREATE INDEX IF NOT EXISTS properties_num ON properties(key_lower, num) WHERE num IS NOT NULL;",
  "CREATE INDEX IF NOT EXISTS properties_text ON properties(key_lower, text) WHERE text IS NOT NULL;",
  "CREATE INDEX IF NOT EXISTS properties_day ON properties(key_lower, day) WHERE day IS NOT NULL;",
  "CREATE INDEX IF NOT EXISTS properties_link ON properties(key_lower, link) WHERE link IS NOT NULL;",
  "CREATE INDEX IF NOT EXISTS properties_bool ON properties(key_lower, bool) WHERE bool IS NOT NULL;",
];

/**
 * Only vector search and the embedding job look chunks up by content hash, so an index pass builds
 * this one only when embeddings are configured: on a vault without them it was the largest of the
 * secondary indexes to build (0.7–0.8 s of a 100,000-note build). Without it those lookups still
 * answer, by a scan.
 */
export const HASH_INDEX_SQL = "CREATE INDEX IF NOT EXISTS chunks_hash ON chunks(hash);";

/**
 * A link's target key, source text, syntax and resolved path, for a links table aliased `l`. Most
 * links are wiki links to a bare name, written the usual way, that resolve to that name's note:
 * for those the columns hold NULL, or only the target's folder, and these expressions make them
 * again (links_key indexes the key's expression).
 */
export const LINK_KEY_SQL = "coalesce(l.target_key, lower(l.linkpath))";
export const LINK_RAW_SQL =
  "coalesce(l.raw, CASE l.embed WHEN 1 THEN '!' ELSE '' END || '[[' || l.linkpath || l.subpath || coalesce('|' || l.display, '') || ']]')";
export const LINK_SYNTAX_SQL = "coalesce(l.syntax, 'wiki')";
// No path is empty or ends with '/': such a value is the folder (with its '/') of `linkpath.md`.
export const LINK_DST_SQL = "CASE WHEN l.dst_path = '' OR l.dst_path GLOB '*/' THEN l.dst_path || l.linkpath || '.md' ELSE l.dst_path END";

/** A property's key as written, for a properties table read without an alias: NULL is stored when it is its own lowercase. */
export const PROPERTY_KEY_SQL = "coalesce(key, key_lower)";

/** The stored forms of a link's key, source text and syntax: NULL where LINK_KEY_SQL, LINK_RAW_SQL and LINK_SYNTAX_SQL make them. */
export function storedLinkForms(l: { embed: boolean; syntax: string; linkpath: string; subpath: string; display: string | null; raw: string }, key: string) {
  // SQLite's lower() folds ASCII letters only.
  const sqlLower = l.linkpath.replace(/[A-Z]+/g, (s) => s.toLowerCase());
  const usual = `${l.embed ? "!" : ""}[[${l.linkpath}${l.subpath}${l.display !== null ? `|${l.display}` : ""}]]`;
  const wiki = l.syntax === "wiki";
  return { key: key === sqlLower ? null : key, raw: wiki && l.raw === usual ? null : l.raw, syntax: wiki ? null : l.syntax };
}

/** The stored form of a link's resolved path: its folder when it is `linkpath.md` there (LINK_DST_SQL). */
export function storedLinkDst(linkpath: string, dst: string | null): string | null {
  if (dst === null || !dst.endsWith(`${linkpath}.md`)) return dst;
  const folder = dst.slice(0, dst.length - linkpath.length - 3);
  return folder === "" || folder.endsWith("/") ? folder : dst;
}

export const INDEX_NAMES = [...INDEX_SQL, HASH_INDEX_SQL].map((sql) => {
  const name = /EXISTS (\w+)/.exec(sql)?.[1];
  if (name === undefined) throw new IndxError("internal", "an index statement names no index after IF NOT EXISTS");
  return name;
});

/**
 * Column weights for bm25(notes_fts, …), in column order. Titles and aliases name the note, so
 * they weigh most; headings less than one might guess (tuned on SciFact, where a 2× heading
 * weight cost 0.002 nDCG@10 against 1.5×).
 */
export const FTS_WEIGHTS = { title: 8, aliases: 8, tags: 2.0, headings: 1.5, body: 1.0 } as const;
