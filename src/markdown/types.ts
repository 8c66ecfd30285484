/** What the parser extracts from one note. Lines are 1-based; offsets are UTF-16 indexes into the text. */

export interface Heading {
  level: number; // 1..6
  text: string; // raw heading text as written (`**Bold**` stays `**Bold**`), closing #s removed
  line: number;
  offset: number; // index of the first character of the heading line
  setext: boolean;
}

export type LinkSyntax = "wiki" | "markdown" | "frontmatter";

export interface LinkRef {
  embed: boolean; // written with a leading `!`
  syntax: LinkSyntax;
  /** The path part as written (decoded for Markdown links), without subpath: `Folder/Note`, `img.png`, `` for `[[#H]]`. */
  linkpath: string;
  /** `#Heading#Sub` or `#^block`, or "" when absent. */
  subpath: string;
  /** Alias / Markdown link text; null when none. */
  display: string | null;
  /** Exact source text of the link, e.g. `![[Note#H|alias]]`. */
  raw: string;
  line: number;
  offset: number; // index of `raw` in the text
  /** For frontmatter links: the property key (`related` or `related.0`). */
  key?: string;
  /** For frontmatter links: the top-level property holding the link (`related`), the name of its typed relation. */
  rel?: string;
}

export interface BlockId {
  id: string; // as written
  line: number;
}

export interface Task {
  line: number;
  status: string; // the character between the brackets: " ", "x", "/", "-", …
  checked: boolean; // status is not a space
  text: string; // the task text after the checkbox
}

export interface Chunk {
  index: number; // 0-based order in the note
  /** Headings from the outermost to the one that owns this chunk; [] for text before the first heading. */
  headingPath: string[];
  startLine: number;
  endLine: number; // inclusive
  text: string; // body text of the chunk (no frontmatter)
}

export interface ParsedNote {
  /** Parsed frontmatter object, or null if absent or malformed. */
  frontmatter: Record<string, unknown> | null;
  /** Set when a frontmatter block exists but is not a YAML mapping. Never contains note text. */
  frontmatterError: string | null;
  /** Index where the body starts (after the closing `---` line), 0 when there is no frontmatter. */
  bodyOffset: number;
  /** 1-based line where the body starts. */
  bodyLine: number;
  aliases: string[];
  /** Tags without `#`, deduplicated case-insensitively (first spelling wins), frontmatter first. */
  tags: string[];
  /** Same, with where each occurrence came from (one entry per occurrence). */
  tagOccurrences: { tag: string; source: "frontmatter" | "body"; line: number }[];
  headings: Heading[];
  links: LinkRef[];
  blocks: BlockId[];
  tasks: Task[];
  chunks: Chunk[];
  wordCount: number;
}
