/**
 * The index schema. Everything here is derived from the vault and can be rebuilt; bump
 * SCHEMA_VERSION on any change so an old index is reported as index_incompatible, never misread.
 */
export const SCHEMA_VERSION = 4;

const META_SQL = "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;";

/** The tables derived from the vault's files: what a rebuild drops and makes again. */
export const DATA_SQL = `
CREATE TABLE files (
  id         INTEGER PRIMARY KEY,
  path       TEXT NOT NULL UNIQUE,
  kind       TEXT NOT NULL,           -- note | canvas | base | attachment
  size       INTEGER NOT NULL,
  mtime_ms   INTEGER NOT NULL,
  etag       TEXT,                    -- xxHash64 of the bytes; NULL for attachments (hashed on demand)
  indexed_at INTEGER NOT NULL
);

CREATE TABLE notes (
  file_id     INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
  title       TEXT NOT NULL,
  aliases     TEXT NOT NULL,          -- JSON array
  tags        TEXT NOT NULL,          -- JSON array, first spelling of each tag
  frontmatter TEXT,                   -- JSON object or NULL
  fm_error    TEXT,
  status      TEXT NOT NULL,          -- ok | too_large | binary
  word_count  INTEGER NOT NULL,
  outline     TEXT NOT NULL,          -- JSON [{level,text,line}]
  -- What full-text search reads besides the chunk text (note_search):
  search_aliases  TEXT NOT NULL,      -- the aliases, space-separated
  search_tags     TEXT NOT NULL,      -- the tags, '/' split into words
  search_headings TEXT NOT NULL,      -- the headings, without one that repeats the title
  title_skip      INTEGER NOT NULL    -- characters of the first chunk that repeat the title (its '# Title' line)
);

CREATE TABLE links (
  src_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  ord        INTEGER NOT NULL,
  embed      INTEGER NOT NULL,
  syntax     TEXT NOT NULL,           -- wiki | markdown | frontmatter
  linkpath   TEXT NOT NULL,
  subpath    TEXT NOT NULL,
  display    TEXT,
  raw        TEXT NOT NULL,
  line       INTEGER NOT NULL,
  col_offset INTEGER NOT NULL,
  prop       TEXT,                    -- frontmatter links: the key as Obsidian caches it (up, related.0)
  rel        TEXT,                    -- frontmatter links: the top-level property (related), a typed relation
  target_key TEXT NOT NULL,           -- lowercased file name the link can match; drives re-resolution
  dst_path   TEXT                     -- resolved vault path, NULL when unresolved
);

CREATE TABLE tags (
  file_id   INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  tag_lower TEXT NOT NULL,
  tag       TEXT NOT NULL,
  source    TEXT NOT NULL,            -- frontmatter | body
  line      INTEGER NOT NULL
);

CREATE TABLE properties (
  file_id   INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  key       TEXT NOT NULL,            -- top-level frontmatter key, as written
  key_lower TEXT NOT NULL,            -- the key lowercased as JavaScript does (property names are case-insensitive)
  type      TEXT NOT NULL,            -- the type Obsidian infers: text | multitext | number | checkbox | date | datetime | object
  value     TEXT NOT NULL,            -- the YAML value as JSON
  -- What base filters prefilter on (src/bases/prefilter.ts), NULL when the value is of another kind:
  num       REAL,                     -- a number
  text      TEXT,                     -- a string, but not a wikilink
  day       TEXT,                     -- a string that reads as a date: its day as written (YYYY-MM-DD)
  link      TEXT                      -- a wikilink ('[[x]]', spaces around allowed): its link path
);

CREATE TABLE blocks (
  file_id  INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  id_lower TEXT NOT NULL,
  id       TEXT NOT NULL,
  line     INTEGER NOT NULL
);

CREATE TABLE tasks (
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  line    INTEGER NOT NULL,
  status  TEXT NOT NULL,
  text    TEXT NOT NULL
);

CREATE TABLE chunks (
  id           INTEGER PRIMARY KEY,   -- also the rowid of chunks_fts
  file_id      INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  ord          INTEGER NOT NULL,
  heading_path TEXT NOT NULL,         -- JSON array of heading texts
  start_line   INTEGER NOT NULL,
  end_line     INTEGER NOT NULL,
  text         TEXT NOT NULL,
  hash         TEXT NOT NULL,         -- content hash: the key for embeddings, so renames never re-embed
  UNIQUE (file_id, ord)
);

-- One searchable document per note, read from the rows above: chunk text is stored once (chunks).
CREATE VIEW note_search AS
SELECT n.file_id AS file_id, n.title AS title, n.search_aliases AS aliases, n.search_tags AS tags,
       n.search_headings AS headings,
       substr((SELECT group_concat(c.text, char(10) || char(10) ORDER BY c.ord) FROM chunks c WHERE c.file_id = n.file_id), n.title_skip + 1) AS body
  FROM notes n WHERE n.status = 'ok' AND EXISTS (SELECT 1 FROM chunks c WHERE c.file_id = n.file_id);

-- The Han, Kana and Hangul runs of each note as overlapping character pairs (src/core/cjk.ts): a
-- word inside a run is found by the phrase of its pairs. No content: only the index is kept.
CREATE VIRTUAL TABLE cjk_fts USING fts5(
  grams, content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 0'
);

CREATE VIRTUAL TABLE notes_fts USING fts5(
  title, aliases, tags, headings, body,
  content = 'note_search', content_rowid = 'file_id',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
`;

export const SCHEMA_SQL = `${META_SQL}\n${DATA_SQL}`;

/**
 * DROP statements for the data tables and views, children first: dropping them in this order never
 * deletes a row that another table still references, so no foreign-key action runs (and dropping
 * notes_fts takes its FTS5 shadow tables with it).
 */
export const DROP_DATA_SQL = [...DATA_SQL.matchAll(/CREATE (VIRTUAL TABLE|TABLE|VIEW) (\w+)/g)]
  .map((m) => `DROP ${m[1] === "VIEW" ? "VIEW" : "TABLE"} ${m[2]}`)
  .reverse();

/**
 * Secondary indexes, kept apart so a first build can load rows first and index them once at the
 * end (much cheaper than maintaining them row by row).
 */
export const INDEX_SQL = [
  "CREATE INDEX IF NOT EXISTS files_kind ON files(kind);",
  "CREATE UNIQUE INDEX IF NOT EXISTS links_src ON links(src_id, ord);",
  "CREATE INDEX IF NOT EXISTS links_dst ON links(dst_path);",
  "CREATE INDEX IF NOT EXISTS links_key ON links(target_key);",
  "CREATE INDEX IF NOT EXISTS tags_tag ON tags(tag_lower);",
  "CREATE INDEX IF NOT EXISTS tags_file ON tags(file_id);",
  "CREATE INDEX IF NOT EXISTS blocks_file ON blocks(file_id);",
  "CREATE INDEX IF NOT EXISTS properties_file ON properties(file_id);",
  // Covering: the prefilter reads file ids straight from them (src/index/queries/candidates.ts).
  "CREATE INDEX IF NOT EXISTS properties_num ON properties(key_lower, num, file_id);",
  "CREATE INDEX IF NOT EXISTS properties_text ON properties(key_lower, text, file_id);",
  "CREATE INDEX IF NOT EXISTS properties_day ON properties(key_lower, day, file_id);",
  "CREATE INDEX IF NOT EXISTS properties_link ON properties(key_lower, link, file_id);",
  "CREATE INDEX IF NOT EXISTS tasks_file ON tasks(file_id);",
  "CREATE INDEX IF NOT EXISTS chunks_hash ON chunks(hash);",
];

export const INDEX_NAMES = INDEX_SQL.map((sql) => /EXISTS (\w+)/.exec(sql)![1]!);

/**
 * Column weights for bm25(notes_fts, …), in column order. Titles and aliases name the note, so
 * they weigh most; headings less than one might guess (tuned on SciFact, where a 2× heading
 * weight cost 0.002 nDCG@10 against 1.5×).
 */
export const FTS_WEIGHTS = { title: 8, aliases: 8, tags: 2.0, headings: 1.5, body: 1.0 } as const;
export const FTS_COLUMNS = ["title", "aliases", "tags", "headings", "body"] as const;
