/**
 * One note read twice, by indx's scanner (src/markdown/) and by mdast (oracle.ts), and the
 * differences listed item by item: what one side reports and the other does not.
 */
import { parseNote } from "../../../../src/markdown/parse.ts";
import { scanBody } from "../../../../src/markdown/scanner.ts";
import { type Oracle, readWithMdast } from "./oracle.ts";

export type Feature = "frontmatter" | "heading" | "fence" | "link" | "wikilink" | "tag" | "block";

export interface Disagreement {
  feature: Feature;
  /** The side that reports the item the other does not. */
  only: "scanner" | "mdast";
  line: number;
  /** Where the item starts in the note, -1 when unknown. */
  offset: number;
  what: string;
}

export interface Comparison {
  oracle: Oracle;
  /** Items compared per feature: the larger of the two sides' counts. */
  counts: Record<Feature, number>;
  disagreements: Disagreement[];
  /** The scanner's wikilinks as [start, end) offsets. */
  wikilinks: [number, number][];
}

interface Item {
  key: string;
  line: number;
  offset: number;
  what: string;
}

export function compareNote(text: string): Comparison {
  const o = readWithMdast(text);
  const note = parseNote(text);
  const scan = scanBody(text, note.bodyOffset, note.bodyLine);
  const out: Disagreement[] = [];
  const counts = { frontmatter: 0, heading: 0, fence: 0, link: 0, wikilink: 0, tag: 0, block: 0 } satisfies Record<Feature, number>;
  const diff = (feature: Feature, mine: Item[], theirs: Item[]) => {
    counts[feature] += Math.max(mine.length, theirs.length);
    for (const d of oneSided(mine, theirs)) out.push({ feature, only: "scanner", ...d });
    for (const d of oneSided(theirs, mine)) out.push({ feature, only: "mdast", ...d });
  };

  const bodyStart = (line: number): Item => ({ key: String(line), line, offset: -1, what: `body starts on line ${line}` });
  diff("frontmatter", [bodyStart(note.bodyLine)], [bodyStart(o.bodyLine)]);

  const heading = (h: { level: number; text: string; line: number }, offset: number): Item => ({
    key: `${h.level}|${h.line}|${h.text}`,
    line: h.line,
    offset,
    what: `H${h.level} ${JSON.stringify(h.text)}`,
  });
  diff(
    "heading",
    note.headings.map((h) => heading(h, h.offset)),
    o.headings.map((h) => heading(h, o.lineStarts[h.line - 1] ?? -1)),
  );

  const fence = (start: number, end: number): Item => ({
    key: `${start}-${end}`,
    line: start,
    offset: o.lineStarts[start - 1] ?? -1,
    what: `fence ${start}-${end}`,
  });
  const mine: Item[] = [];
  for (let i = 0; i < scan.fences.length; i += 2) mine.push(fence(scan.fences[i]!, scan.fences[i + 1]!));
  diff(
    "fence",
    mine,
    o.fences.map((f) => fence(f.start, f.end)),
  );

  const link = (l: { offset: number; line: number; embed: boolean; target: string }): Item => ({
    key: `${l.offset}|${l.embed}|${l.target}`,
    line: l.line,
    offset: l.offset,
    what: `${l.embed ? "image" : "link"} → ${JSON.stringify(l.target)}`,
  });
  const body = note.links.filter((l) => l.syntax !== "frontmatter");
  diff(
    "link",
    body.filter((l) => l.syntax === "markdown").map((l) => link({ ...l, target: l.linkpath + l.subpath })),
    o.links.map(link),
  );
  const wiki = (w: { offset: number; line: number; raw: string }): Item => ({ key: `${w.offset}|${w.raw}`, line: w.line, offset: w.offset, what: w.raw });
  diff("wikilink", body.filter((l) => l.syntax === "wiki").map(wiki), o.wikilinks.map(wiki));

  const tag = (t: { tag: string; line: number }, offset: number): Item => ({ key: `${t.line}|${t.tag}`, line: t.line, offset, what: `#${t.tag}` });
  diff(
    "tag",
    scan.tags.map((t) => tag(t, tagOffset(o, t.tag, t.line))),
    o.tags.map((t) => tag(t, t.offset)),
  );

  const block = (b: { id: string; line: number }): Item => ({ key: `${b.line}|${b.id}`, line: b.line, offset: -1, what: `^${b.id}` });
  diff("block", note.blocks.map(block), o.blocks.map(block));
  const wikilinks = body.filter((l) => l.syntax === "wiki").map((l): [number, number] => [l.offset, l.offset + l.raw.length]);
  return { oracle: o, counts, disagreements: out, wikilinks };
}

/** Items of `a` that `b` lacks (as multisets: a key twice in `a` and once in `b` leaves one). */
function oneSided(a: Item[], b: Item[]): Omit<Item, "key">[] {
  const left = new Map<string, number>();
  for (const x of b) left.set(x.key, (left.get(x.key) ?? 0) + 1);
  const out: Omit<Item, "key">[] = [];
  for (const x of a) {
    const n = left.get(x.key) ?? 0;
    if (n > 0) left.set(x.key, n - 1);
    else out.push({ line: x.line, offset: x.offset, what: x.what });
  }
  return out;
}

/** The scanner reports a tag's line, not its offset: the first `#tag` on that line mdast has no tag at. */
function tagOffset(o: Oracle, tag: string, line: number): number {
  const start = o.lineStarts[line - 1] ?? 0;
  const end = o.lineStarts[line] ?? o.text.length;
  const known = new Set(o.tags.filter((t) => t.line === line).map((t) => t.offset));
  for (let i = o.text.indexOf(`#${tag}`, start); i >= 0 && i < end; i = o.text.indexOf(`#${tag}`, i + 1)) {
    if (!known.has(i)) return i;
  }
  return o.text.indexOf(`#${tag}`, start);
}
