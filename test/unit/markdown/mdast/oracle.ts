/**
 * The CommonMark reading of a note, from mdast-util-from-markdown (with GFM and YAML frontmatter):
 * what the differential test (scanner-vs-mdast.test.ts) holds indx's hand-written scanner to.
 * Obsidian's own syntax (wikilinks, tags, block ids) is unknown to CommonMark, so it is found here
 * by Obsidian's documented rules (docs/obsidian.md) applied only where mdast says there is text:
 * never in code, HTML, a link destination or an image.
 */
import type { Nodes, Parents, Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { frontmatterFromMarkdown } from "mdast-util-frontmatter";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { frontmatter } from "micromark-extension-frontmatter";
import { gfm } from "micromark-extension-gfm";

/** What each source character is to mdast. */
export const Role = {
  Syntax: 0, // block or inline markers, line prefixes, blank lines
  Text: 1,
  Code: 2,
  Html: 3,
  Destination: 4, // link destination/title, image, definition
} as const;
type RoleValue = (typeof Role)[keyof typeof Role];

export interface OracleHeading {
  level: number;
  text: string;
  line: number;
  /** Inside a block quote, callout or list item. */
  nested: boolean;
}
export interface OracleFence {
  start: number;
  end: number;
  info: string;
  nested: boolean;
}
export interface OracleLink {
  offset: number;
  line: number;
  embed: boolean;
  target: string;
}
export interface OracleWikilink {
  offset: number;
  raw: string;
  line: number;
}
export interface OracleTag {
  tag: string;
  line: number;
  offset: number;
}
export interface OracleBlock {
  id: string;
  line: number;
  nested: boolean;
}

export interface Oracle {
  text: string;
  tree: Root;
  roles: Uint8Array;
  lineStarts: number[];
  bodyLine: number;
  headings: OracleHeading[];
  fences: OracleFence[];
  links: OracleLink[];
  wikilinks: OracleWikilink[];
  tags: OracleTag[];
  blocks: OracleBlock[];
  /** Lines that are rows of a GFM table. */
  tableLines: Set<number>;
  /** Lines touched by a code span that runs over a line break. */
  codeSpanLines: Set<number>;
  /** Each paragraph's first and last line and its first line's source. */
  paragraphs: { from: number; to: number; first: string }[];
}

const PHRASING_PARENTS = new Set(["paragraph", "heading", "emphasis", "strong", "delete", "link", "linkReference", "tableCell"]);
const EXTERNAL = /^[A-Za-z][A-Za-z0-9+.-]*:|^\/\//;
/** Obsidian's tag body (docs/obsidian.md, Tags), copied here rather than imported: the test must not share the scanner's code. */
const TAG_BODY = /^#([^\u2000-\u206F\u2E00-\u2E7F'!"#$%&()*+,.:;<=>?@^`{|}~[\]\\\s]+)/u;
const BLOCK_ID_AT_END = /(?:^|\s)\^([A-Za-z0-9-]+)[ \t]*$/;

export function readWithMdast(text: string): Oracle {
  // micromark-extension-frontmatter 2.0 misreads the rest of a note whose `---` opens no frontmatter
  // (everything after it becomes one paragraph): such a note is read again without the extension.
  let tree: Root | null = null;
  if (text.startsWith("---")) {
    tree = fromMarkdown(text, { extensions: [frontmatter(["yaml"]), gfm()], mdastExtensions: [frontmatterFromMarkdown(["yaml"]), gfmFromMarkdown()] });
    if (tree.children[0]?.type !== "yaml") tree = null;
  }
  tree ??= fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const o: Oracle = {
    text,
    tree,
    roles: new Uint8Array(text.length),
    lineStarts: lineStartsOf(text),
    bodyLine: 1,
    headings: [],
    fences: [],
    links: [],
    wikilinks: [],
    tags: [],
    blocks: [],
    tableLines: new Set(),
    codeSpanLines: new Set(),
    paragraphs: [],
  };
  const chunkStarts = new Set<number>();
  const paragraphs: Paragraph[] = [];
  walk(o, tree, 0, { chunkStarts, paragraphs });
  for (const p of paragraphs) {
    const [s, e] = span(p.node);
    const from = lineOf(o, s);
    o.paragraphs.push({ from, to: lineOf(o, Math.max(s, e - 1)), first: o.text.slice(s, o.lineStarts[from] ?? o.text.length) });
    paragraphBlockId(o, p.node, p.nested);
  }
  findWikilinksAndTags(o, chunkStarts);
  return o;
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** 1-based line of `offset`. */
export function lineOf(o: Oracle, offset: number): number {
  let lo = 0;
  let hi = o.lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (o.lineStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

const span = (n: Nodes): [number, number] => [n.position?.start.offset ?? 0, n.position?.end.offset ?? 0];

function mark(o: Oracle, n: Nodes, role: RoleValue): void {
  const [s, e] = span(n);
  o.roles.fill(role, s, e);
}

interface Paragraph {
  node: Extract<Nodes, { type: "paragraph" }>;
  nested: boolean;
}
interface Found {
  /** Offsets where a text node opens an inline chunk (a paragraph, heading, emphasis, link text, table cell). */
  chunkStarts: Set<number>;
  paragraphs: Paragraph[];
}

function walk(o: Oracle, node: Nodes, depth: number, found: Found): void {
  switch (node.type) {
    case "yaml":
      o.bodyLine = (node.position?.end.line ?? 0) + 1;
      return;
    case "text":
      mark(o, node, Role.Text);
      return;
    case "inlineCode": {
      mark(o, node, Role.Code);
      const [from, to] = [node.position?.start.line ?? 0, node.position?.end.line ?? 0];
      for (let l = from; from < to && l <= to; l++) o.codeSpanLines.add(l);
      return;
    }
    case "code":
      mark(o, node, Role.Code);
      codeBlock(o, node, depth);
      return;
    case "html":
      mark(o, node, Role.Html);
      return;
    case "image":
    case "imageReference":
    case "definition":
      mark(o, node, Role.Destination);
      if (node.type === "image") addLink(o, node.url, span(node)[0], true);
      return;
    case "link":
      mark(o, node, Role.Destination); // the children's text is marked again below
      addLink(o, node.url, span(node)[0], false);
      break;
    case "heading":
      o.headings.push({ level: node.depth, text: headingText(o, node), line: node.position?.start.line ?? 0, nested: depth > 0 });
      break;
    case "paragraph":
      found.paragraphs.push({ node, nested: depth > 0 });
      break;
    case "tableRow":
      o.tableLines.add(node.position?.start.line ?? 0);
      break;
  }
  if (!("children" in node)) return;
  const parent: Parents = node;
  const first = parent.children[0];
  if (first?.type === "text" && PHRASING_PARENTS.has(parent.type)) found.chunkStarts.add(span(first)[0]);
  const inContainer = parent.type === "blockquote" || parent.type === "listItem";
  const kids: Nodes[] = parent.children;
  for (let i = 0; i < kids.length; i++) {
    const child = kids[i]!;
    if (child.position) walk(o, child, inContainer ? depth + 1 : depth, found);
    else unpositioned(o, parent, kids, i);
  }
}

/**
 * GFM's autolink literals are found after parsing, by splitting text nodes, and the pieces carry no
 * position: the source between the positioned siblings around them is read as text.
 */
function unpositioned(o: Oracle, parent: Nodes, kids: Nodes[], i: number): void {
  let from = span(parent)[0];
  for (let k = i - 1; k >= 0; k--) {
    if (kids[k]!.position) {
      from = span(kids[k]!)[1];
      break;
    }
  }
  let to = span(parent)[1];
  for (let k = i + 1; k < kids.length; k++) {
    if (kids[k]!.position) {
      to = span(kids[k]!)[0];
      break;
    }
  }
  o.roles.fill(Role.Text, from, to);
}

function codeBlock(o: Oracle, node: Extract<Nodes, { type: "code" }>, depth: number): void {
  const [s, e] = span(node);
  const c = o.text[s];
  if (c !== "`" && c !== "~") return; // indented code (it starts at its indent, a fence at its first backtick or tilde)
  const info = node.lang === null || node.lang === undefined ? "" : node.meta ? `${node.lang} ${node.meta}` : node.lang;
  // Where an unclosed fence's position ends among the blank lines after its code depends on what
  // closed it (mdast keeps them before a sibling list item, not before a paragraph): compare it up
  // to its last line with content.
  const start = lineOf(o, s);
  let end = lineOf(o, Math.max(s, e - 1));
  while (end > start && /^[\s>]*$/.test(o.text.slice(o.lineStarts[end - 1], o.lineStarts[end] ?? o.text.length))) end--;
  o.fences.push({ start, end, info, nested: depth > 0 });
}

function addLink(o: Oracle, url: string, offset: number, embed: boolean): void {
  if (url === "" || EXTERNAL.test(url)) return;
  let target = url;
  try {
    target = decodeURI(url);
  } catch {
    // kept as written, as Obsidian does on a bad escape (docs/obsidian.md, Links)
  }
  o.links.push({ offset, line: lineOf(o, offset), embed, target: target.normalize("NFC") });
}

/** The heading's source between its markers, each line trimmed (a setext heading may span lines). */
function headingText(o: Oracle, node: Extract<Nodes, { type: "heading" }>): string {
  const kids = node.children;
  if (kids.length === 0) return "";
  if (kids.every((k) => k.position)) return normalizeHeadingText(o.text.slice(span(kids[0]!)[0], span(kids[kids.length - 1]!)[1]));
  // An autolink literal left pieces without a position: take the heading's own source, without its
  // markers (CommonMark: the opening #s and a closing run of #s after a space; a setext underline).
  const [s, e] = span(node);
  const raw = o.text.slice(s, e);
  if (!/^ {0,3}#/.test(raw)) return normalizeHeadingText(raw.slice(0, raw.lastIndexOf("\n")));
  return normalizeHeadingText(raw.replace(/^ {0,3}#{1,6}(?:[ \t]+|$)/, "").replace(/(?:^|[ \t]+)#+[ \t]*$/, ""));
}

export function normalizeHeadingText(raw: string): string {
  return raw
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .join("\n");
}

/** A `^id` ending a paragraph's last line, preceded by whitespace (docs/obsidian.md, Block ids). */
function paragraphBlockId(o: Oracle, node: Paragraph["node"], nested: boolean): void {
  const [s, e] = span(node);
  const endLine = lineOf(o, Math.max(s, e - 1));
  const from = Math.max(s, o.lineStarts[endLine - 1]!);
  const m = BLOCK_ID_AT_END.exec(o.text.slice(from, e));
  if (!m) return;
  const caret = from + m.index + m[0].indexOf("^");
  if (o.roles[caret] !== Role.Text) return;
  o.blocks.push({ id: m[1]!, line: endLine, nested });
}

const isEscaped = (text: string, p: number): boolean => {
  let n = 0;
  while (p - 1 - n >= 0 && text.charCodeAt(p - 1 - n) === 92) n++;
  return n % 2 === 1;
};

/**
 * Wikilinks (`/^(!?)\[\[(.+?)]]/` from their opening brackets, contents trimmed and non-empty, no
 * nested `[[`) and tags (a `#` at a line start, after whitespace, at the start of an inline chunk or
 * after `==`) where mdast has text; none may cover code, HTML or a destination.
 */
function findWikilinksAndTags(o: Oracle, chunkStarts: Set<number>): void {
  const { text, roles } = o;
  for (let li = 0; li < o.lineStarts.length; li++) {
    const start = o.lineStarts[li]!;
    const nl = text.indexOf("\n", start);
    const end = nl < 0 ? text.length : nl;
    let p = start;
    while (p < end) {
      const c = text.charCodeAt(p);
      if (roles[p] !== Role.Text || isEscaped(text, p)) {
        p++;
        continue;
      }
      if (c === 91 && text.charCodeAt(p + 1) === 91) {
        const close = text.indexOf("]]", p + 2);
        const inner = close >= 0 && close < end ? text.slice(p + 2, close) : "";
        if (inner.trim() !== "" && !inner.includes("[[") && !coversNonText(roles, p, close + 2)) {
          const from = p > start && text.charCodeAt(p - 1) === 33 && !isEscaped(text, p - 1) ? p - 1 : p;
          o.wikilinks.push({ offset: from, raw: text.slice(from, close + 2), line: li + 1 });
          p = close + 2;
          continue;
        }
      } else if (c === 35 && tagMayStart(o, p, start, chunkStarts)) {
        const m = TAG_BODY.exec(text.slice(p, end));
        if (m && !/^\d+$/.test(m[1]!)) {
          o.tags.push({ tag: m[1]!, line: li + 1, offset: p });
          p += m[0].length;
          continue;
        }
      }
      p++;
    }
  }
}

function coversNonText(roles: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (roles[i] === Role.Code || roles[i] === Role.Html || roles[i] === Role.Destination) return true;
  return false;
}

function tagMayStart(o: Oracle, p: number, lineStart: number, chunkStarts: Set<number>): boolean {
  if (p === lineStart || chunkStarts.has(p)) return true;
  const prev = o.text.charCodeAt(p - 1);
  if (/\s/.test(String.fromCharCode(prev))) return true;
  // ==#tag== (a highlight, unknown to CommonMark), its `==` not glued to a word before it
  if (prev !== 61 || o.text.charCodeAt(p - 2) !== 61) return false;
  let k = p - 2;
  while (k > lineStart && o.text.charCodeAt(k - 1) === 61) k--;
  return k === lineStart || /[\s\p{P}\p{S}]/u.test(o.text[k - 1] ?? " ");
}
