/**
 * Seeded generator of notes for the scanner/mdast differential test: every block kind the scanner
 * tracks (ATX and setext headings, fences of both characters and several lengths, unclosed fences,
 * indented code, lists, quotes and callouts, HTML blocks, tables, frontmatter) with inline content
 * that puts links, embeds, tags, code spans and block ids next to each other.
 */

/** mulberry32: a small, fast, seedable PRNG (the same seed gives the same notes everywhere). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const chance = (r: Rand, p: number): boolean => r() < p;
const int = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));

const WORDS = ["alpha", "beta", "note", "Über", "café", "plan", "x", "42", "the", "of", "draft", "😀", "word#notag", "a_b_c", "2*3"];

const INLINE = [
  "#tag",
  "#nested/tag",
  "#y1984",
  "#1984",
  "#émoji😀",
  "#tag.",
  "#a-b_c",
  "\\#escaped",
  "**#bold**",
  "_#em_",
  "~~#struck~~",
  "==#marked==",
  "(#paren)",
  "[[Note]]",
  "[[Folder/Note#Heading|alias]]",
  "[[#Local heading]]",
  "[[Note#^blk]]",
  "![[image.png|100]]",
  "![[Note#Section]]",
  "[[ ]]",
  "[[a [[b]]",
  "\\[[not]]",
  "[text](Other%20Note.md)",
  "[text](<Spaced Note.md>)",
  "[t](Note.md#Some%20Heading)",
  "[t](#local)",
  "![alt](pic.png)",
  "![alt|100](img/a%20b.png)",
  "[web](https://example.com/#frag)",
  "https://example.com/#frag",
  "[#tagtext](Target.md)",
  "`code #notag [[nolink]]`",
  "``a ` #in [[in]] ``",
  "` ``tick`` `",
  "```inline```",
  "`unclosed #tag",
  "<span>#afterspan</span>",
  '<a href="#x">a</a>',
  "<!-- #hidden [[hidden]] -->",
  "%%#comment [[c]]%%",
  "$$#math$$",
  "[[Note]](x.md)",
  "[[a `b` c]]",
  "&#35;entity",
  "*#star",
  "x=#eq",
];

function inline(r: Rand, n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(chance(r, 0.45) ? pick(r, INLINE) : pick(r, WORDS));
  return parts.join(chance(r, 0.9) ? " " : "");
}

const blockId = (r: Rand): string => pick(r, ["^abc123", "^Blk-1", "^x", "^under_score", "^é"]);

function paragraph(r: Rand): string[] {
  const lines: string[] = [];
  const n = int(r, 1, 3);
  for (let i = 0; i < n; i++) lines.push(" ".repeat(i > 0 && chance(r, 0.2) ? int(r, 1, 6) : 0) + inline(r, int(r, 1, 6)));
  if (chance(r, 0.3)) lines[lines.length - 1] += ` ${blockId(r)}`;
  if (chance(r, 0.05)) lines[lines.length - 1] += pick(r, ["^nospace", " ^id trailing", " ^id  "]);
  return lines;
}

function atx(r: Rand): string[] {
  const level = chance(r, 0.05) ? 7 : int(r, 1, 6);
  const indent = " ".repeat(chance(r, 0.15) ? int(r, 1, 4) : 0);
  const hashes = "#".repeat(level);
  const body = chance(r, 0.05) ? "" : inline(r, int(r, 1, 4));
  const sep = chance(r, 0.05) ? "" : chance(r, 0.1) ? "\t" : " ";
  const closing = pick(r, ["", "", "", " ##", " #", "#", " \\#", " ###   ", "  "]);
  return [`${indent}${hashes}${sep}${body}${closing}`];
}

function setext(r: Rand): string[] {
  const lines = [inline(r, int(r, 1, 4))];
  if (chance(r, 0.3)) lines.push(inline(r, int(r, 1, 3)));
  const ch = pick(r, ["=", "-"]);
  lines.push(" ".repeat(chance(r, 0.2) ? int(r, 1, 4) : 0) + ch.repeat(int(r, 1, 6)) + pick(r, ["", "  ", " x"]));
  return lines;
}

function fence(r: Rand, prefix = ""): string[] {
  const ch = pick(r, ["`", "~"]);
  const len = int(r, 3, 5);
  const indent = " ".repeat(chance(r, 0.2) ? int(r, 1, 3) : 0);
  const info = pick(r, ["", "js", 'python title="a b"', " ts ", "dataview", "a`b", "~~~", "{.class #id}"]);
  const lines = [`${indent}${ch.repeat(len)}${info}`];
  for (let i = int(r, 0, 4); i > 0; i--) {
    lines.push(
      pick(r, [
        "# not a heading",
        "#notatag [[nolink]]",
        "[md](x.md)",
        ch.repeat(len - 1),
        pick(r, ["`", "~"]).repeat(3),
        "",
        "    indented",
        "code ^notblock",
      ]),
    );
  }
  if (!chance(r, 0.1))
    lines.push(" ".repeat(int(r, 0, chance(r, 0.1) ? 4 : 3)) + ch.repeat(len + (chance(r, 0.2) ? int(r, -1, 2) : 0)) + pick(r, ["", " ", " x"]));
  return lines.map((l) => prefix + l);
}

function list(r: Rand): string[] {
  const lines: string[] = [];
  const ordered = chance(r, 0.3);
  for (let i = int(r, 1, 4); i > 0; i--) {
    const marker = ordered ? `${i}.` : pick(r, ["-", "*", "+"]);
    const nest = chance(r, 0.25) ? "  " : "";
    const task = chance(r, 0.3) ? pick(r, ["[ ] ", "[x] ", "[/] "]) : "";
    const content = chance(r, 0.15) ? `${pick(r, ["#", "##", "###"])} ${inline(r, 2)}` : inline(r, int(r, 1, 4));
    lines.push(`${nest}${marker} ${task}${content}${chance(r, 0.25) ? ` ${blockId(r)}` : ""}`);
    if (chance(r, 0.15)) lines.push(`${nest}  ${inline(r, 2)}${chance(r, 0.3) ? ` ${blockId(r)}` : ""}`);
    if (chance(r, 0.1)) lines.push("", ...fence(r, `${nest}  `));
    if (chance(r, 0.05))
      lines.push(`${nest}${marker} ${pick(r, ["```js", "~~~"])}`, `${nest}  # in the item's code`, `${nest}  ${pick(r, ["```", "~~~", "text"])}`);
  }
  return lines;
}

function quote(r: Rand): string[] {
  const lines: string[] = [];
  if (chance(r, 0.5)) lines.push(`> [!${pick(r, ["note", "tip", "warning"])}]${pick(r, ["", "-", "+"])} ${inline(r, 2)}`);
  for (let i = int(r, 1, 3); i > 0; i--) {
    const depth = chance(r, 0.2) ? "> > " : "> ";
    const kind = int(r, 0, 5);
    if (kind === 0) lines.push(`${depth}${pick(r, ["#", "##"])} ${inline(r, 2)}`);
    else if (kind === 1) lines.push(...fence(r, depth));
    else if (kind === 3 && chance(r, 0.5)) lines.push(`${depth}${inline(r, 2)}`, `${depth}${pick(r, ["---", "===", "- x"])}`);
    else if (kind === 2) lines.push(`${depth}- ${inline(r, 2)}`);
    else lines.push(`${depth}${inline(r, int(r, 1, 4))}${chance(r, 0.2) ? ` ${blockId(r)}` : ""}`);
  }
  if (chance(r, 0.2)) lines.push(inline(r, 2)); // lazy continuation
  return lines;
}

function html(r: Rand): string[] {
  return pick(r, [
    ["<div>", inline(r, 3), "</div>"],
    ['<table><tr><td style="color:#ff0000">', "#inhtml [[InHtml]]", "</td></tr></table>"],
    ["<!--", "#commented [[Commented]]", "-->"],
    ["<details><summary>#sum</summary>", inline(r, 2), "</details>"],
    ["<pre>", "# not heading", "", "#still-pre", "</pre>"],
    ["<span>", inline(r, 2)],
  ]);
}

function table(r: Rand): string[] {
  const rows = ["| a | b |", "|---|---|"];
  for (let i = int(r, 1, 3); i > 0; i--) rows.push(`| ${inline(r, 2)} | ${pick(r, ["[[Note\\|alias]]", "#cell", "`|`", "x"])} |`);
  return rows;
}

function indentedCode(r: Rand): string[] {
  return ["", `    ${pick(r, ["#notag [[nolink]]", "# not heading", "[md](x.md)"])}`, `    ${inline(r, 2)}`, ""];
}

function frontmatterBlock(r: Rand): string[] {
  return pick(r, [
    ["---", "title: Demo", "tags: [a, b]", "---"],
    ["---", "---"],
    ["---", 'up: "[[Home]]"', "---   "],
    ["---", "a: 1"], // unclosed: not frontmatter
    ["---", "tags:", "  - x", "..."],
  ]);
}

/** A paragraph a table interrupts, and a code span that runs over a line break. */
const tableAfterText = (r: Rand): string[] => [`${inline(r, 2)} ${blockId(r)}`, ...table(r)];
const spanOverLines = (r: Rand): string[] => [`${inline(r, 2)} \`open ${pick(r, INLINE)}`, `${pick(r, INLINE)} closed\` ${inline(r, 2)}`];

/** An ordered list right after indented code, and a fence in a list inside a quote. */
const listAfterCode = (r: Rand): string[] => [
  "    code #notag",
  "",
  `${int(r, 2, 5)}. ${inline(r, 2)}`,
  "",
  "    ```",
  "    # in the item",
  "    ```",
  "",
  "after the list",
];
const quotedListFence = (r: Rand): string[] => [`> - ${inline(r, 2)}`, ">   ```", `> ${inline(r, 2)}`, "> ```"];

const BLOCKS = [
  paragraph,
  paragraph,
  atx,
  atx,
  setext,
  fence,
  list,
  quote,
  html,
  table,
  indentedCode,
  tableAfterText,
  spanOverLines,
  listAfterCode,
  quotedListFence,
  () => ["---"],
  () => ["***"],
  (r: Rand) => [blockId(r)],
];

/** One note: optional frontmatter, then 3–12 blocks, usually separated by blank lines. */
export function generateNote(r: Rand): string {
  const lines: string[] = [];
  if (chance(r, 0.3)) lines.push(...frontmatterBlock(r));
  for (let b = int(r, 3, 12); b > 0; b--) {
    if (lines.length > 0 && chance(r, 0.8)) lines.push("");
    lines.push(...pick(r, BLOCKS)(r));
  }
  return lines.join(chance(r, 0.1) ? "\r\n" : "\n") + (chance(r, 0.8) ? "\n" : "");
}
