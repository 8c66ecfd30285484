/**
 * The body scanner: one pass over the lines of the note body, tracking block context (fenced and
 * indented code, block quotes, lists, paragraphs for setext headings, hidden comment/math regions)
 * and handing each line's inline content to the InlineScanner.
 */
import { blockIdAtLineEnd } from "./blocks.ts";
import { CR, SPACE, TAB, isSpaceOrTab } from "./chars.ts";
import { fenceOpenAt, isFenceCloseAt, type FenceOpen } from "./fences.ts";
import { atxHeadingAt, isThematicBreakAt, setextLevelAt } from "./headings.ts";
import { InlineScanner } from "./inline.ts";
import { listItemAt } from "./tasks.ts";
import type { BlockId, Heading, Task } from "./types.ts";

export interface BodyScan {
  headings: Heading[];
  links: InlineScanner["links"];
  tags: InlineScanner["tags"];
  blocks: BlockId[];
  tasks: Task[];
  /** Absolute index of the first character of each body line, in order. */
  lineStarts: number[];
  /** 1-based line number of lineStarts[0]. */
  firstLine: number;
  /** Fenced code blocks as flat pairs [firstLine, lastLine, ...] (absolute, inclusive). */
  fences: number[];
}

interface OpenFence extends FenceOpen {
  quoteDepth: number;
  minIndent: number; // a non-blank line indented less closes a fence opened inside a list item
  maxCloseIndent: number;
  startLine: number;
}

/** Column width of leading spaces/tabs (tabs to the next multiple of 4) and the first other index. */
function measureIndent(text: string, from: number, end: number): { indent: number; p: number } {
  let col = 0;
  let p = from;
  while (p < end) {
    const c = text.charCodeAt(p);
    if (c === SPACE) col++;
    else if (c === TAB) col += 4 - (col % 4);
    else break;
    p++;
  }
  return { indent: col, p };
}

/** Consumes up to `max` block-quote markers (`>` with an optional following space) from `p`. */
function stripQuotes(text: string, p: number, end: number, max: number): { depth: number; p: number } {
  let depth = 0;
  let q = p;
  while (depth < max && q < end && text.charCodeAt(q) === 62 /* > */) {
    depth++;
    q++;
    while (q < end && isSpaceOrTab(text.charCodeAt(q))) q++;
  }
  return { depth, p: q };
}

export function scanBody(text: string, bodyOffset: number, bodyLine: number): BodyScan {
  const len = text.length;
  const inline = new InlineScanner(text);
  const headings: Heading[] = [];
  const blocks: BlockId[] = [];
  const tasks: Task[] = [];
  const lineStarts: number[] = [];
  const fences: number[] = [];

  let fence: OpenFence | null = null;
  let inIndentedCode = false;
  let inList = false;
  let prevBlank = true;
  // Open paragraph (for setext headings and block-id continuation).
  let para = false;
  let paraSetextOk = false;
  let paraStartLine = 0;
  let paraStartOffset = 0;
  let prevQuoteText = false; // previous line was a non-empty block-quote line
  // A block id seen at the end of a line, committed when the next line does not continue the block.
  let pendingId: string | null = null;
  let pendingLine = 0;

  let pos = bodyOffset;
  if (pos === 0 && text.charCodeAt(0) === 0xfeff) pos = 1; // BOM: not frontmatter, not content
  let lineNo = bodyLine;

  const commitPending = () => {
    if (pendingId !== null) blocks.push({ id: pendingId, line: pendingLine });
    pendingId = null;
  };
  const considerBlockId = (from: number, end: number, line: number) => {
    if (inline.hiddenUntil > end) return;
    const id = blockIdAtLineEnd(text, from, end);
    if (id !== null) {
      pendingId = id;
      pendingLine = line;
    }
  };

  while (pos < len) {
    const lineStart = pos;
    const nl = text.indexOf("\n", pos);
    const lineEnd = nl < 0 ? len : nl;
    pos = nl < 0 ? len : nl + 1;
    let end = lineEnd;
    if (end > lineStart && text.charCodeAt(end - 1) === CR) end--;
    const line = lineNo++;
    lineStarts.push(lineStart);

    // 1. Inside a comment / math region that started on an earlier line.
    if (inline.hiddenUntil > lineStart) {
      if (inline.hiddenUntil >= end) {
        para = false;
        continue;
      }
      pendingId = null;
      inline.scan(inline.hiddenUntil, end, line);
      considerBlockId(lineStart, end, line);
      prevBlank = false;
      continue;
    }

    const { indent, p: p0 } = measureIndent(text, lineStart, end);
    const blank = p0 === end;

    // 2. Inside a fenced code block.
    if (fence !== null) {
      let closedByContainer = false;
      let p = p0;
      let ind = indent;
      if (fence.quoteDepth > 0) {
        const q = stripQuotes(text, p0, end, fence.quoteDepth);
        if (q.depth < fence.quoteDepth) closedByContainer = true;
        else {
          const m = measureIndent(text, q.p, end);
          p = m.p;
          ind = 0;
        }
      } else if (!blank && indent < fence.minIndent) closedByContainer = true;
      if (!closedByContainer) {
        if (ind - fence.minIndent <= fence.maxCloseIndent && isFenceCloseAt(text, p, end, fence)) {
          fences.push(fence.startLine, line);
          fence = null;
        }
        continue;
      }
      fences.push(fence.startLine, line - 1);
      fence = null;
    }

    // 3. Blank line.
    if (blank) {
      commitPending();
      prevBlank = true;
      para = false;
      prevQuoteText = false;
      continue;
    }

    // 4. Indented code (conservative: after a blank line, never in a list).
    if (inIndentedCode) {
      if (indent >= 4) continue;
      inIndentedCode = false;
    }
    if (indent >= 4 && prevBlank && !inList && !para) {
      commitPending();
      inIndentedCode = true;
      continue;
    }

    const wasBlank = prevBlank;
    prevBlank = false;
    const p = p0;

    // 5. Block quote.
    if (indent < 4 && text.charCodeAt(p) === 62 /* > */) {
      const q = stripQuotes(text, p, end, 100);
      const m = measureIndent(text, q.p, end);
      if (m.p === end) {
        commitPending();
        prevQuoteText = false;
        para = false;
        continue;
      }
      const f = m.indent < 4 ? fenceOpenAt(text, m.p, end) : null;
      if (f) {
        commitPending();
        fence = { ...f, quoteDepth: q.depth, minIndent: 0, maxCloseIndent: 3, startLine: line };
        prevQuoteText = false;
        para = false;
        continue;
      }
      const item = m.indent < 4 ? listItemAt(text, m.p, end) : null;
      if (item || !prevQuoteText) commitPending();
      else pendingId = null;
      if (item && item.status !== null) {
        tasks.push({ line, status: item.status, checked: item.status !== " ", text: text.slice(item.textStart, item.textEnd) });
      }
      const contentStart = item ? item.contentStart : m.p;
      inline.scan(contentStart, end, line, m.p);
      considerBlockId(contentStart, end, line);
      prevQuoteText = true;
      para = false;
      continue;
    }
    prevQuoteText = false;

    if (indent < 4 || inList) {
      // 6. Fence opening (any indent inside a list item).
      const f = fenceOpenAt(text, p, end);
      if (f) {
        commitPending();
        const nested = inList && indent > 0;
        fence = {
          ...f,
          quoteDepth: 0,
          minIndent: nested ? indent : 0,
          maxCloseIndent: 3,
          startLine: line,
        };
        para = false;
        if (indent === 0) inList = false;
        continue;
      }
    }

    if (indent < 4) {
      // 7. ATX heading.
      if (text.charCodeAt(p) === 35) {
        const h = atxHeadingAt(text, p, end);
        if (h) {
          commitPending();
          headings.push({ level: h.level, text: text.slice(h.textStart, h.textEnd), line, offset: lineStart, setext: false });
          inline.scan(h.textStart, h.textEnd, line);
          para = false;
          if (indent === 0) inList = false;
          continue;
        }
      }
      // 8. Setext underline under an eligible paragraph.
      if (para && paraSetextOk) {
        const level = setextLevelAt(text, p, end);
        if (level > 0) {
          pendingId = null;
          headings.push({
            level,
            text: setextText(text, paraStartOffset, lineStart),
            line: paraStartLine,
            offset: paraStartOffset,
            setext: true,
          });
          para = false;
          continue;
        }
      }
      // 9. Thematic break.
      if (isThematicBreakAt(text, p, end)) {
        commitPending();
        para = false;
        if (indent === 0) inList = false;
        continue;
      }
    }

    // 10. List item (nested items may be indented further inside a list).
    const item = indent < 4 || inList ? listItemAt(text, p, end) : null;
    if (item) {
      commitPending();
      inList = true;
      if (item.status !== null) {
        tasks.push({ line, status: item.status, checked: item.status !== " ", text: text.slice(item.textStart, item.textEnd) });
      }
      inline.scan(item.contentStart, end, line);
      considerBlockId(item.contentStart, end, line);
      para = true;
      paraSetextOk = false;
      continue;
    }

    // 11. Paragraph text (or a lazy continuation of one).
    if (para) {
      pendingId = null;
      if (text.charCodeAt(p) === 124 /* | */) paraSetextOk = false; // table rows are not setext text
    } else {
      commitPending();
      if (wasBlank && indent === 0) inList = false;
      para = true;
      paraSetextOk = !inList && text.charCodeAt(p) !== 124;
      paraStartLine = line;
      paraStartOffset = lineStart;
    }
    inline.scan(p, end, line, p);
    considerBlockId(p, end, line);
  }
  commitPending();
  if (fence !== null) fences.push(fence.startLine, lineNo - 1);

  return {
    headings,
    links: inline.links,
    tags: inline.tags,
    blocks,
    tasks,
    lineStarts,
    firstLine: bodyLine,
    fences,
  };
}

/** Setext heading text: the paragraph's lines, each trimmed, joined with `\n`. */
function setextText(text: string, from: number, to: number): string {
  const raw = text.slice(from, to);
  const lines = raw.split("\n");
  const out: string[] = [];
  for (const l of lines) {
    const t = l.trim();
    if (t !== "") out.push(t);
  }
  return out.join("\n");
}
