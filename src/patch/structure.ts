/**
 * The structural view of a note that patch ops address: headings with their sections, block ids,
 * fenced code ranges, all as UTF-16 offsets into the text.
 *
 * Headings and block ids come from the indexer's own body scanner (src/markdown/scanner.ts), so a
 * patch sees exactly the headings the index reports: nothing inside fenced code, frontmatter,
 * block quotes or callouts, and setext headings included.
 */

import { IndxError } from "../core/errors.ts";
import { skipSpaces } from "../markdown/chars.ts";
import { type FrontmatterBlock, splitFrontmatter } from "../markdown/frontmatter.ts";
import { setextLevelAt } from "../markdown/headings.ts";
import { scanBody } from "../markdown/scanner.ts";
import type { BlockId } from "../markdown/types.ts";
import { type Eol, isBlankLineAt, lineContentEnd, nextLineStart, noteEol } from "./text.ts";

export interface HeadingNode {
  index: number;
  level: number;
  /** Raw heading text as the scanner reports it (setext lines joined with "\n"). */
  text: string;
  /** 1-based line of the heading's first line. */
  line: number;
  /** Offset of the heading's first line. */
  start: number;
  /** Offset just past the heading's last line (the setext underline), line break included. */
  end: number;
  /** 0-based index of the heading's last line (the underline for setext). */
  lastLineIndex: number;
  setext: boolean;
  /** Offset of the next heading of the same or a higher level, or text.length. */
  sectionEnd: number;
  /** Index of the nearest heading whose section contains this one, or -1. */
  parent: number;
}

export interface NoteStructure {
  text: string;
  eol: Eol;
  frontmatter: FrontmatterBlock | null;
  /** Offset where the body starts (after the frontmatter block, or 0). */
  bodyStart: number;
  /** 0-based index of the body's first line. */
  bodyFirstLineIndex: number;
  /** Offset of the start of every line (0-based line index). */
  lineStarts: number[];
  headings: HeadingNode[];
  blocks: BlockId[];
  /** Fenced code blocks as [firstLineIndex, lastLineIndex] pairs (0-based, inclusive). */
  fences: [number, number][];
  /** 0-based indexes of every line that belongs to a heading (setext text and underline too). */
  headingLines: Set<number>;
}

export function analyze(text: string): NoteStructure {
  const frontmatter = splitFrontmatter(text);
  const bodyStart = frontmatter ? frontmatter.bodyOffset : 0;
  const bodyLine = frontmatter ? frontmatter.bodyLine : 1;
  const lineStarts = computeLineStarts(text);
  const scan = scanBody(text, bodyStart, bodyLine);

  const fences: [number, number][] = [];
  for (let i = 0; i + 1 < scan.fences.length; i += 2) {
    const first = scan.fences[i];
    const last = scan.fences[i + 1];
    if (first !== undefined && last !== undefined) fences.push([first - 1, last - 1]);
  }

  const headings: HeadingNode[] = [];
  const headingLines = new Set<number>();
  const open: HeadingNode[] = []; // headings whose section is still running, outermost first
  for (const h of scan.headings) {
    const firstIndex = h.line - 1;
    const lastIndex = h.setext ? setextUnderlineIndex(text, lineStarts, firstIndex, h.level) : firstIndex;
    for (let i = firstIndex; i <= lastIndex; i++) headingLines.add(i);
    // A heading closes every open section of the same or a deeper level; what stays open contains it.
    for (let top = open.at(-1); top && top.level >= h.level; top = open.at(-1)) {
      top.sectionEnd = h.offset;
      open.pop();
    }
    const node: HeadingNode = {
      index: headings.length,
      level: h.level,
      text: h.text,
      line: h.line,
      start: h.offset,
      end: nextLineStart(text, lineStartOf(lineStarts, lastIndex)),
      lastLineIndex: lastIndex,
      setext: h.setext,
      sectionEnd: text.length,
      parent: open.at(-1)?.index ?? -1,
    };
    headings.push(node);
    open.push(node);
  }

  return {
    text,
    eol: noteEol(text),
    frontmatter,
    bodyStart,
    bodyFirstLineIndex: bodyLine - 1,
    lineStarts,
    headings,
    blocks: scan.blocks,
    fences,
    headingLines,
  };
}

function computeLineStarts(text: string): number[] {
  const starts = [0];
  let nl = text.indexOf("\n");
  while (nl >= 0) {
    starts.push(nl + 1);
    nl = text.indexOf("\n", nl + 1);
  }
  // A text ending with a line break has no further line: drop the empty "line" after it.
  if (starts.length > 1 && starts[starts.length - 1] === text.length) starts.pop();
  return starts;
}

/** The setext underline is the first line after the heading's first line that is one. */
function setextUnderlineIndex(text: string, lineStarts: number[], firstIndex: number, level: number): number {
  for (let i = firstIndex + 1; i < lineStarts.length; i++) {
    const start = lineStartOf(lineStarts, i);
    const end = lineContentEnd(text, start);
    if (setextLevelAt(text, skipSpaces(text, start, end), end) === level) return i;
  }
  return firstIndex; // unreachable for a heading the scanner reported as setext
}

/** Offset of line `index` (0-based): every index the patch code computes is a line of the note, so one outside it is a bug. */
export function lineStartOf(lineStarts: readonly number[], index: number): number {
  const start = lineStarts[index];
  if (start === undefined) throw new IndxError("internal", `line index ${index} is outside the note (${lineStarts.length} lines)`);
  return start;
}

/** The heading whose section contains `h` directly, or undefined for a top-level one (parent -1). */
export function parentOf(s: NoteStructure, h: HeadingNode): HeadingNode | undefined {
  return h.parent >= 0 ? s.headings[h.parent] : undefined;
}

/** Ancestors of a heading (outermost first), by section containment. */
export function ancestorsOf(s: NoteStructure, h: HeadingNode): HeadingNode[] {
  const out: HeadingNode[] = [];
  for (let p = parentOf(s, h); p; p = parentOf(s, p)) out.unshift(p);
  return out;
}

/** "A > B > C" display path of a heading (setext line breaks shown as spaces). */
export function headingPath(s: NoteStructure, h: HeadingNode): string {
  return [...ancestorsOf(s, h), h].map((x) => x.text.replace(/\s*\n\s*/g, " ")).join(" > ");
}

/**
 * End of a section's content: just past the last non-blank line between the heading and the
 * section end (the heading's own end when the body is blank). Blank lines after it are the
 * separation before the next heading and are not part of the content.
 */
export function sectionContentEnd(s: NoteStructure, h: HeadingNode): number {
  let contentEnd = h.end;
  for (let i = h.lastLineIndex + 1; i < s.lineStarts.length; i++) {
    const start = lineStartOf(s.lineStarts, i);
    if (start >= h.sectionEnd) break;
    if (!isBlankLineAt(s.text, start)) contentEnd = nextLineStart(s.text, start);
  }
  return contentEnd;
}

/** The fence [first, last] (0-based line indexes) that contains line `index`, if any. */
export function fenceContaining(s: NoteStructure, index: number): [number, number] | null {
  for (const f of s.fences) if (index >= f[0] && index <= f[1]) return f;
  return null;
}
