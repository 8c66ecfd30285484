/**
 * Where indx's scanner and CommonMark (mdast) may read a note differently, on purpose: each class
 * names the difference, says why Obsidian's rule (docs/obsidian.md) is the scanner's and not
 * CommonMark's, and detects its disagreements. Any disagreement no class explains fails the
 * differential test. docs/obsidian.md ("Scanner vs CommonMark") lists the same classes.
 */
import type { Disagreement } from "./compare.ts";
import { type Oracle, Role } from "./oracle.ts";

export interface Context {
  oracle: Oracle;
  /** The scanner's wikilinks as [start, end) offsets. */
  wikilinks: [number, number][];
}

export interface DifferenceClass {
  name: string;
  reason: string;
  /**
   * obsidian: Obsidian's rule differs from CommonMark's and the scanner follows Obsidian;
   * decision: indx's own documented choice; gap: a known gap in the scanner, left open (rare in
   * notes, costly for a line scanner); parser: mdast departs from the CommonMark spec.
   */
  kind: "obsidian" | "decision" | "gap" | "parser";
  explains(d: Disagreement, c: Context): boolean;
  /** A note where the difference shows (the test checks it still does, and that this class explains it). */
  example: string;
}

const lineText = (o: Oracle, line: number): string => {
  const s = o.lineStarts[line - 1] ?? 0;
  const e = o.lineStarts[line] ?? o.text.length + 1;
  return o.text.slice(s, e - 1);
};

/** [start, end) of the `%%…%%` comments and `$$…$$` math in the note (unclosed `%%` runs to the end). */
function hiddenRegions(o: Oracle): [number, number][] {
  const out: [number, number][] = [];
  for (const m of o.text.matchAll(/%%[\s\S]*?(?:%%|$)|\$\$[\s\S]*?\$\$/g)) out.push([m.index, m.index + m[0].length]);
  return out;
}

const inside = (offset: number, ranges: [number, number][]): boolean => ranges.some(([s, e]) => offset >= s && offset < e);

function covers(o: Oracle, from: number, to: number, role: number): boolean {
  for (let i = from; i < to; i++) if (o.roles[i] === role) return true;
  return false;
}

/** Are the lines after `from` up to `to` blank or indented, as the rest of a list item would be? */
function inListAfter(o: Oracle, from: number, to: number): boolean {
  for (let l = from + 1; l <= to; l++) if (!/^(?:\s|$)/.test(lineText(o, l))) return false;
  return true;
}

/** Is `line` in the run of non-blank lines right after a table? */
function afterTable(o: Oracle, line: number): boolean {
  for (let l = line - 1; l >= 1 && lineText(o, l).trim() !== ""; l--) if (o.tableLines.has(l)) return true;
  return false;
}

/** What mdast makes of the disagreement's place: its offset, or (for a block id) its line's first character. */
function roleOfLine(o: Oracle, d: Disagreement): number {
  if (d.offset >= 0) return o.roles[d.offset] ?? Role.Syntax;
  const start = o.lineStarts[d.line - 1] ?? 0;
  const text = lineText(o, d.line);
  return o.roles[start + text.length - text.trimStart().length] ?? Role.Syntax;
}

/** Is the `#` at `hash` right after `*`, `_`, `~`, `[` or a highlight's `==`? */
const afterMarker = (text: string, hash: number): boolean => "*_~[".includes(text[hash - 1]!) || (hash > 1 && text.slice(hash - 2, hash) === "==");

const isCodeOrHtml = (role: number): boolean => role === Role.Code || role === Role.Html;

const isTableRow = (o: Oracle, line: number): boolean => o.tableLines.has(line);

export const ACCEPTED: DifferenceClass[] = [
  {
    kind: "obsidian",
    name: "heading in a container",
    reason:
      "a heading inside a block quote, callout or list item is part of that block: Obsidian links to no part of a quote or callout " +
      "(docs/obsidian.md, Block ids), and the scanner lists only the note's own headings, reading such a line as the block's text",
    explains: (d, { oracle }) =>
      oracle.headings.some((h) => h.nested && h.line === d.line) && ((d.feature === "heading" && d.only === "mdast") || d.feature === "block"),
    example: "> # In a quote\n\n- ## In a list ^id\n",
  },
  {
    kind: "decision",
    name: "links inside HTML",
    reason: "links inside HTML blocks are still read, although Obsidian renders no Markdown there (docs/decisions.md, Typed links, anchors and HTML blocks)",
    explains: (d, { oracle }) => (d.feature === "wikilink" || d.feature === "link") && d.only === "scanner" && oracle.roles[d.offset] === Role.Html,
    example: "<div>\n[[Inside]] [md](inside.md)\n</div>\n",
  },
  {
    kind: "obsidian",
    name: "comments and math",
    reason: "`%%comments%%` and `$$math$$` are Obsidian syntax, unknown to CommonMark: nothing inside them is a link or a tag (docs/obsidian.md, Links)",
    explains: (d, { oracle }) => d.only === "mdast" && d.offset >= 0 && inside(d.offset, hiddenRegions(oracle)),
    example: "%%[[hidden]] #hidden%% and $$#math [[m]]$$\n",
  },
  {
    kind: "obsidian",
    name: "wikilink first",
    reason:
      "Obsidian reads `[[…]]` from its opening brackets (docs/obsidian.md, Links), before a code span or Markdown link that CommonMark " +
      "would find inside it: `[[a `b` c]]` and `[[Note]](x.md)` are wikilinks",
    explains: (d, { oracle, wikilinks }) => {
      if (d.feature === "wikilink" && d.only === "scanner") {
        const end = d.offset + d.what.length;
        return covers(oracle, d.offset, end, Role.Code) || covers(oracle, d.offset, end, Role.Destination);
      }
      return d.only === "mdast" && d.offset >= 0 && wikilinks.some(([s, e]) => d.offset >= s && d.offset < e);
    },
    example: "[[a `b` c]] and [[Note]](x.md)\n",
  },
  {
    kind: "gap",
    name: "unpaired marker before a tag",
    reason:
      "a tag may start right after an inline marker (`**#tag**`, `==#tag==`; docs/obsidian.md, Tags); the scanner does not look for the marker's " +
      "closing half, where CommonMark keeps an opener without a closer as plain text",
    explains: (d, { oracle }) => d.feature === "tag" && d.only === "scanner" && d.offset > 0 && afterMarker(oracle.text, d.offset),
    example: "a *#tag here, ==#not marked\n",
  },
  {
    kind: "gap",
    name: "table rows",
    reason:
      "a GFM table runs to the next blank line (a line without a pipe is a row) and splits its rows into cells at each `|` before reading " +
      "code spans and links (Obsidian asks for `\\|` inside tables); the scanner reads a row as a line of paragraph text",
    explains: (d, { oracle }) =>
      (isTableRow(oracle, d.line) && (d.feature === "block" || /`[^`]*\|[^`]*`|\[[^\]]*\|[^\]]*\]\(/.test(lineText(oracle, d.line)))) ||
      // indented code or an HTML block right after a table, which the scanner takes for more of its paragraph
      (d.only === "scanner" && afterTable(oracle, d.line) && isCodeOrHtml(roleOfLine(oracle, d))),
    example: "| a | b |\n|---|---|\n| `a | #t` |\n| x | y |\nno pipe ^id\n\n| a |\n|---|\n| b |\n    indented #x\n",
  },
  {
    kind: "gap",
    name: "table after a paragraph",
    reason:
      "a GFM table may interrupt a paragraph; the scanner reads a table row as paragraph text, so an id before a table with no blank line between is not an id",
    explains: (d, { oracle }) => d.feature === "block" && d.only === "mdast" && isTableRow(oracle, d.line + 1),
    example: "text ^id\n| a | b |\n|---|---|\n| 1 | 2 |\n",
  },
  {
    name: "code span over a line break",
    kind: "gap",
    reason:
      "CommonMark lets a code span run over the line breaks of its paragraph; the scanner pairs backticks within a line. A known gap, left " +
      "open: a backtick run left unclosed on a line is rare in notes, and pairing across lines needs the paragraph's extent, which the line scanner does not keep",
    explains: (d, { oracle }) => oracle.codeSpanLines.has(d.line),
    example: "a `code\n#notag` b\n",
  },
  {
    kind: "gap",
    name: "bare URL",
    reason:
      "the scanner reads a bare `scheme://` URL up to the next space, so that its `#fragment` is no tag (docs/obsidian.md, Tags); a wikilink or " +
      "tag glued to its end goes with it, where GFM ends an autolink at a word boundary or finds none after a letter",
    explains: (d, { oracle }) => d.only === "mdast" && d.offset > 0 && /:\/\/\S*$/.test(oracle.text.slice(oracle.lineStarts[d.line - 1] ?? 0, d.offset)),
    example: "see https://example.com/x[[Note]]\n",
  },
  {
    kind: "decision",
    name: "text after an HTML comment",
    reason:
      "indx hides only what is inside `<!-- … -->` (docs/obsidian.md, Links); CommonMark makes the rest of the line where a comment block ends raw HTML too",
    explains: (d, { oracle }) => {
      if (d.only !== "scanner") return false;
      if (d.feature === "block") return /^[\s>]*(?:[-*+]|\d{1,9}[.)])?\s*<!--.*-->.*\^/.test(lineText(oracle, d.line));
      return d.offset >= 0 && oracle.roles[d.offset] === Role.Html && oracle.text.lastIndexOf("-->", d.offset) > oracle.text.lastIndexOf("\n", d.offset);
    },
    example: "<!-- c --> #tag [[Link]]\n",
  },
  {
    name: "HTML tag line after a list item",
    kind: "parser",
    reason:
      "micromark ends a list item's paragraph at a line outside the item holding a lone HTML tag (`<span>`); such HTML cannot interrupt a " +
      "paragraph, so the CommonMark spec (and the scanner) read the line as a lazy continuation of it",
    explains: (d, { oracle }) => d.feature === "block" && d.only === "mdast" && /^<[A-Za-z][^>]*>\s*$/.test(lineText(oracle, d.line + 1)),
    example: "- item ^id\n<span>\n",
  },
  {
    name: "ordered list after indented code",
    kind: "parser",
    reason:
      "micromark 4 reads an ordered list that does not start at 1, right after indented code and a blank line, as a paragraph; the " +
      "CommonMark spec (and the scanner) make it a list, since no paragraph is open for it to interrupt",
    explains: (d, { oracle }) =>
      oracle.paragraphs.some((p) => p.from <= d.line && /^ {0,3}\d{1,9}[.)][ \t]/.test(p.first) && (d.line <= p.to || inListAfter(oracle, p.to, d.line))),
    example: "    code\n\n3. item\n\n    ```\n    in the item\n    ```\n",
  },
];
