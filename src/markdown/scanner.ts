/**
 * The body scanner: one pass over the lines of the note body, tracking block context (fenced and
 * indented code, block quotes, lists, paragraphs for setext headings, hidden comment/math regions)
 * and handing each line's inline content to the InlineScanner.
 */
import { blockIdAtLineEnd, PendingBlockIds } from "./blocks.ts";
import { CR, SPACE, TAB } from "./chars.ts";
import { type FenceOpen, fenceOpenAt, isFenceCloseAt } from "./fences.ts";
import { atxHeadingAt, isAtxHeading, isThematicBreakAt, setextLevelAt, setextText } from "./headings.ts";
import { type HtmlBlockEnd, holdsEndMarker, htmlBlockStart } from "./html-blocks.ts";
import { InlineScanner, type TagHit } from "./inline.ts";
import { OpenLists } from "./open-lists.ts";
import { quoteMarkers } from "./quotes.ts";
import { type ListItemMatch, listItemAt, mayInterruptParagraph } from "./tasks.ts";
import type { BlockId, Heading, LinkRef, Task } from "./types.ts";

export interface BodyScan {
  headings: Heading[];
  links: LinkRef[];
  tags: TagHit[];
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
  startLine: number;
  lastFilledLine: number; // an unclosed fence ends on its last non-blank line (trailing blank lines are no code)
}

export function scanBody(text: string, bodyOffset: number, bodyLine: number): BodyScan {
  return new BodyScanner(text).run(bodyOffset, bodyLine);
}

class BodyScanner {
  private readonly inline: InlineScanner;
  private readonly headings: Heading[] = [];
  private readonly tasks: Task[] = [];
  private readonly lineStarts: number[] = [];
  private readonly fences: number[] = [];

  private fence: OpenFence | null = null;
  private htmlBlock: HtmlBlockEnd | null = null;
  /** How many `>` the open HTML block sits in: its lines carry them, and a line with fewer ends it (no lazy continuation). */
  private htmlQuoteDepth = 0;
  private inIndentedCode = false;
  private indentedCodeAt = 4; // the indent the lines of the open indented code block need
  private readonly lists = new OpenLists();
  private prevBlank = true;
  // Open paragraph (for setext headings and block-id continuation).
  private para = false;
  private paraSetextOk = false;
  private paraTable = false; // the open "paragraph" began with `|`: a table, which any list may interrupt
  private paraStartLine = 0;
  private paraStartOffset = 0;
  private prevQuoteText = false; // previous line was a non-empty block-quote line
  private prevQuoteDepth = 0; // quote depth of the previous quote line with text
  private quoteItemColumn = 0; // content column (inside the quote) of the last list item in the current quote, 0 when none
  private readonly ids = new PendingBlockIds();
  // Result of `indentAt`: column width of the leading whitespace.
  private indent = 0;

  constructor(private readonly text: string) {
    this.inline = new InlineScanner(text);
  }

  run(bodyOffset: number, bodyLine: number): BodyScan {
    const text = this.text;
    const len = text.length;
    let pos = bodyOffset;
    if (pos === 0 && text.charCodeAt(0) === 0xfeff) pos = 1; // BOM: not frontmatter, not content
    let line = bodyLine;
    while (pos < len) {
      const lineStart = pos;
      const nl = text.indexOf("\n", pos);
      let end = nl < 0 ? len : nl;
      pos = nl < 0 ? len : nl + 1;
      if (end > lineStart && text.charCodeAt(end - 1) === CR) end--;
      this.lineStarts.push(lineStart);
      this.line(lineStart, end, line);
      line++;
    }
    this.ids.commit();
    if (this.fence !== null) this.fences.push(this.fence.startLine, this.fence.lastFilledLine);
    return {
      headings: this.headings,
      links: this.inline.links,
      tags: this.inline.tags,
      blocks: this.ids.blocks,
      tasks: this.tasks,
      lineStarts: this.lineStarts,
      firstLine: bodyLine,
      fences: this.fences,
    };
  }

  /** Index of the first non space/tab character from `from`; sets `this.indent` (tabs to 4). */
  private indentAt(from: number, end: number): number {
    const text = this.text;
    let col = 0;
    let p = from;
    while (p < end) {
      const c = text.charCodeAt(p);
      if (c === SPACE) col++;
      else if (c === TAB) col += 4 - (col % 4);
      else break;
      p++;
    }
    this.indent = col;
    return p;
  }

  private considerBlockId(from: number, end: number, line: number): void {
    if (this.inline.hiddenUntil > end) return;
    const id = blockIdAtLineEnd(this.text, from, end);
    if (id !== null) this.ids.hold(id, line);
  }

  private addTask(item: ListItemMatch, line: number): void {
    if (item.status === null) return;
    this.tasks.push({
      line,
      status: item.status,
      checked: item.status !== " ",
      text: this.text.slice(item.textStart, item.textEnd),
    });
  }

  private line(lineStart: number, end: number, line: number): void {
    const text = this.text;
    const inline = this.inline;

    // 1. Inside a comment / math region that started on an earlier line.
    if (inline.hiddenUntil > lineStart) {
      if (inline.hiddenUntil >= end) {
        this.para = false;
        return;
      }
      this.ids.drop();
      inline.scan(inline.hiddenUntil, end, line);
      this.considerBlockId(lineStart, end, line);
      this.prevBlank = false;
      return;
    }

    const p = this.indentAt(lineStart, end);
    const indent = this.indent;
    const blank = p === end;

    // 2. Inside a fenced code block.
    if (this.fence !== null && !this.fenceLine(p, end, indent, blank, line)) {
      this.prevBlank = blank;
      return;
    }

    // 2b. Inside an HTML block: raw text, where only links are read.
    if (this.htmlBlock !== null && !this.htmlLine(p, end, blank, line)) return;

    // 3. Blank line.
    if (blank) {
      this.ids.commit();
      this.quoteItemColumn = 0;
      this.prevBlank = true;
      this.para = false;
      this.prevQuoteText = false;
      return;
    }

    // After a blank line, a line indented less than every open list item's content ends the list.
    if (this.prevBlank && this.lists.leftOfAll(indent) && listItemAt(text, p, end) === null) this.lists.leave();

    // 4. Indented code where no paragraph continues (not even lazily, after a quote's text), four
    // columns past the content of the list item it is in, if any.
    if (this.inIndentedCode) {
      if (indent >= this.indentedCodeAt) return;
      this.inIndentedCode = false;
    }
    if (indent >= 4 && !this.para && !this.prevQuoteText) {
      const base = this.lists.base(indent);
      if (indent - base >= 4) {
        this.ids.commit();
        this.lists.keep(indent);
        this.inIndentedCode = true;
        this.indentedCodeAt = base + 4;
        return;
      }
    }

    const wasBlank = this.prevBlank;
    this.prevBlank = false;
    const c = text.charCodeAt(p);

    if (c === 60 /* < */ && indent < 4 && (this.htmlComment(p, end, line) || this.openHtmlBlock(p, end, line))) {
      if (this.lists.leftOfAll(indent)) this.lists.leave();
      return;
    }

    const lazy = this.prevQuoteText; // a quote's paragraph continues here: no setext underline can follow
    // Fast path: a line starting with a letter is paragraph text.
    if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c >= 128)) {
      if (indent < 4 && c === 62 /* > */) {
        if (this.lists.leftOfAll(indent)) this.lists.leave();
        this.quoteLine(p, end, line);
        return;
      }
      if (this.blockLine(p, end, indent, c, line)) return;
    }
    this.prevQuoteText = false;

    // 11. Paragraph text (or a lazy continuation of one).
    if (this.para) {
      this.ids.drop();
      if (c === 124 /* | */) {
        this.paraSetextOk = false; // table rows are not setext text
        this.paraTable = true;
      }
    } else {
      if (lazy)
        this.ids.drop(); // a lazy continuation line: the quote's paragraph goes on
      else this.ids.commit();
      // A line left of the list's content that continues no paragraph is not in the list.
      if (wasBlank ? indent === 0 : this.lists.leftOfAll(indent)) this.lists.leave();
      this.para = true;
      this.paraSetextOk = !this.lists.open && c !== 124 && !lazy;
      this.paraTable = c === 124;
      this.paraStartLine = line;
      this.paraStartOffset = lineStart;
    }
    inline.scan(p, end, line, p);
    this.considerBlockId(p, end, line);
  }

  /** A line while an HTML block is open. Returns true when the line ended the block (and is still to be handled). */
  private htmlLine(p0: number, end: number, blank: boolean, line: number): boolean {
    const block = this.htmlBlock!;
    let p = p0;
    let empty = blank;
    if (this.htmlQuoteDepth > 0) {
      // The block ends with its quote: a line with fewer `>` is handled as a line of its own.
      const q = quoteMarkers(this.text, p0, end, this.htmlQuoteDepth);
      if (this.indent >= 4 || q.depth < this.htmlQuoteDepth) {
        this.htmlBlock = null;
        return true;
      }
      p = this.indentAt(q.contentStart, end);
      empty = p === end;
    }
    if (empty && "blankLine" in block) {
      this.htmlBlock = null;
      return true;
    }
    this.inline.scanWithoutTags(p, end, line);
    if (holdsEndMarker(this.text.slice(p, end), block)) this.htmlBlock = null;
    return false;
  }

  /**
   * A line opening with `<!--` is an HTML block (CommonMark's kind 2, which may interrupt a
   * paragraph): it ends the paragraph before it, so it is never part of a setext heading's text.
   * What it hides is the inline scanner's business (`hiddenUntil`); text after its `-->` keeps
   * its links and tags (docs/obsidian.md, Scanner vs CommonMark).
   */
  private htmlComment(p: number, end: number, line: number): boolean {
    if (!this.text.startsWith("<!--", p)) return false;
    this.ids.commit();
    this.para = false;
    this.prevQuoteText = false;
    this.inline.scan(p, end, line);
    return true;
  }

  /** Opens an HTML block when the line starts one (its first line is raw text too). */
  private openHtmlBlock(p: number, end: number, line: number): boolean {
    const content = this.text.slice(p, end);
    const block = htmlBlockStart(content, this.para);
    if (block === null) return false;
    this.ids.commit();
    this.para = false;
    this.prevQuoteText = false;
    this.inline.scanWithoutTags(p, end, line);
    // Kinds 1-5 may end on the line they start on (the marker after the opening `<`).
    this.htmlBlock = holdsEndMarker(content.slice(1), block) ? null : block;
    this.htmlQuoteDepth = 0;
    return true;
  }

  /** Opens an HTML block inside a quote or callout of `depth` when its content starts one (docs/obsidian.md, Tags). */
  private openQuotedHtmlBlock(m: number, end: number, depth: number, line: number): boolean {
    const content = this.text.slice(m, end);
    const block = htmlBlockStart(content, this.prevQuoteText);
    if (block === null) return false;
    this.ids.commit();
    this.prevQuoteText = false;
    this.inline.scanWithoutTags(m, end, line);
    this.htmlBlock = holdsEndMarker(content.slice(1), block) ? null : block;
    this.htmlQuoteDepth = depth;
    return true;
  }

  /** A line while a fence is open. Returns true when the fence was closed by its container. */
  private fenceLine(p0: number, end: number, indent: number, blank: boolean, line: number): boolean {
    const fence = this.fence!;
    let p = p0;
    let ind = indent;
    if (fence.quoteDepth > 0) {
      const q = quoteMarkers(this.text, p0, end, fence.quoteDepth);
      if (q.depth < fence.quoteDepth) return this.closeFence(fence.lastFilledLine);
      p = this.indentAt(q.contentStart, end);
      ind = this.indent;
      if (p < end && ind < fence.minIndent) return this.closeFence(fence.lastFilledLine); // its list item in the quote ends
    } else if (!blank && indent < fence.minIndent) return this.closeFence(fence.lastFilledLine);
    if (ind - fence.minIndent <= 3 && isFenceCloseAt(this.text, p, end, fence)) this.closeFence(line);
    else if (p < end) fence.lastFilledLine = line;
    return false;
  }

  private closeFence(lastLine: number): true {
    this.fences.push(this.fence!.startLine, lastLine);
    this.fence = null;
    return true;
  }

  private openFence(f: FenceOpen, quoteDepth: number, minIndent: number, line: number): void {
    this.ids.commit();
    this.fence = { char: f.char, length: f.length, quoteDepth, minIndent, startLine: line, lastFilledLine: line };
    this.para = false;
  }

  /** A block-quote line: fences, tasks and inline content inside the quote. */
  private quoteLine(p: number, end: number, line: number): void {
    const text = this.text;
    const { depth, contentStart: afterMarkers } = quoteMarkers(text, p, end, 100);
    const m = this.indentAt(afterMarkers, end);
    const mIndent = this.indent;
    this.para = false;
    if (m === end) {
      this.ids.commit();
      this.prevQuoteText = false;
      return;
    }
    if (mIndent < this.quoteItemColumn && !this.prevQuoteText) this.quoteItemColumn = 0;
    const base = mIndent >= this.quoteItemColumn ? this.quoteItemColumn : 0;
    if (mIndent - base >= 4 && !this.prevQuoteText) {
      this.ids.commit(); // indented code in the quote
      return;
    }
    const f = mIndent - base < 4 ? fenceOpenAt(text, m, end) : null;
    if (f) {
      if (base === 0) this.quoteItemColumn = 0; // a fence left of the item's content closes the item
      this.openFence(f, depth, base, line);
      this.prevQuoteText = false;
      return;
    }
    if (mIndent < 4 && text.charCodeAt(m) === 60 /* < */ && this.openQuotedHtmlBlock(m, end, depth, line)) return;
    const item = mIndent < 4 ? listItemAt(text, m, end) : null;
    const heading = mIndent < 4 && isAtxHeading(text, item ? item.contentStart : m, end);
    // A list item, a heading or a deeper quote ends the paragraph before it; other text continues it.
    if (item || heading || !this.prevQuoteText || depth > this.prevQuoteDepth) this.ids.commit();
    else this.ids.drop();
    if (item) {
      this.quoteItemColumn = mIndent + (item.contentStart - m);
      const f = fenceOpenAt(text, item.contentStart, end);
      if (f) {
        this.openFence(f, depth, this.quoteItemColumn, line);
        this.prevQuoteText = false;
        return;
      }
      this.addTask(item, line);
    }
    const contentStart = item ? item.contentStart : m;
    this.inline.scan(contentStart, end, line, m);
    if (!heading) this.considerBlockId(contentStart, end, line);
    // A heading in the quote is no paragraph: the next line outside the quote does not continue it.
    this.prevQuoteText = !heading;
    this.prevQuoteDepth = depth;
  }

  /**
   * Block constructs that start with a non-letter: fences, ATX and setext headings, thematic
   * breaks, list items. Returns true when the line was fully handled.
   */
  private blockLine(p: number, end: number, indent: number, c: number, line: number): boolean {
    const text = this.text;
    this.prevQuoteText = false;
    if (c === 96 || c === 126) {
      // A fence belongs to the deepest open list item whose content column it reaches (or to no
      // list), and is one only within 3 columns of that: further in, it is indented code or text.
      const base = this.lists.base(indent);
      const f = indent - base < 4 ? fenceOpenAt(text, p, end) : null;
      if (f) {
        this.lists.keep(indent);
        this.openFence(f, 0, base, line);
        return true;
      }
    }
    if (indent < 4) {
      if (c === 35 /* # */) {
        const h = atxHeadingAt(text, p, end);
        if (h) {
          this.ids.commit();
          this.headings.push({ level: h.level, text: text.slice(h.textStart, h.textEnd), line, offset: this.lineStartOf(p), setext: false });
          this.inline.scan(h.textStart, h.textEnd, line);
          this.para = false;
          if (indent === 0) this.lists.leave();
          return true;
        }
      }
      if (this.para && this.paraSetextOk) {
        const level = setextLevelAt(text, p, end);
        if (level > 0) {
          this.ids.drop();
          this.headings.push({
            level,
            text: setextText(text, this.paraStartOffset, this.lineStartOf(p)),
            line: this.paraStartLine,
            offset: this.paraStartOffset,
            setext: true,
          });
          this.para = false;
          return true;
        }
      }
      if (isThematicBreakAt(text, p, end)) {
        this.ids.commit();
        this.para = false;
        if (indent === 0) this.lists.leave();
        return true;
      }
    }
    // List item (nested items may be indented further inside a list).
    const item = indent < 4 || this.lists.open ? listItemAt(text, p, end) : null;
    if (item && (!this.para || this.lists.open || this.paraTable || mayInterruptParagraph(text, p, item, end))) {
      this.ids.commit();
      const column = indent + (item.contentStart - p);
      this.lists.addItem(indent, column);
      const f = fenceOpenAt(text, item.contentStart, end); // `- ```js`: the item opens with a fence
      if (f) {
        this.openFence(f, 0, column, line);
        return true;
      }
      this.addTask(item, line);
      this.inline.scan(item.contentStart, end, line);
      this.considerBlockId(item.contentStart, end, line);
      this.para = !isAtxHeading(text, item.contentStart, end); // an item holding a heading has no paragraph to continue
      this.paraSetextOk = false;
      return true;
    }
    return false;
  }

  /** Start of the line containing index `p` (the scanner only calls this on the current line). */
  private lineStartOf(p: number): number {
    return this.lineStarts[this.lineStarts.length - 1] ?? p;
  }
}
