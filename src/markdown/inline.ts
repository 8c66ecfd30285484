/**
 * Inline scan of one line's content: links, embeds, tags. Skips backslash escapes, code spans,
 * bare URLs, and hidden regions — `%%comments%%`, `<!-- html comments -->` and `$$math$$` — which
 * may run over several lines (the scanner then skips up to `hiddenUntil`).
 */
import { markdownTarget, parseMarkdownLinkAt, parseWikilinkContent } from "./links.ts";
import { tagEndAt, tagMayStartAt } from "./tags.ts";
import type { LinkRef } from "./types.ts";

export interface TagHit {
  tag: string;
  line: number;
}

/**
 * Memo for "first occurrence at or after `from`" searches: a later query whose `from` lies between
 * the previous `from` and its answer gets the same answer, so scanning line after line stays linear.
 */
class ForwardFinder {
  private from = -1;
  private pos = -1;
  constructor(private readonly needle: string | RegExp) {}
  next(text: string, from: number): number {
    if (this.from >= 0 && this.from <= from && (this.pos < 0 || this.pos >= from)) return this.pos;
    this.from = from;
    const n = this.needle;
    if (typeof n === "string") this.pos = text.indexOf(n, from);
    else {
      n.lastIndex = from;
      this.pos = n.test(text) ? n.lastIndex - 1 : -1;
    }
    return this.pos;
  }
}

/** Characters that can start something the inline scanner cares about. */
const SPECIAL = /[\\`%<$[#:]/g;

export class InlineScanner {
  readonly links: LinkRef[] = [];
  readonly tags: TagHit[] = [];
  /** Text before this index is hidden (inside a comment or math region that began earlier). */
  hiddenUntil = 0;
  /** Inside an HTML block (src/markdown/html-blocks.ts): links are read, tags are not. */
  private tagsOff = false;
  private readonly wikiClose = new ForwardFinder("]]");
  private readonly pctClose = new ForwardFinder("%%");
  private readonly htmlClose = new ForwardFinder("-->");
  private readonly mathClose = new ForwardFinder("$$");
  private readonly special = new ForwardFinder(SPECIAL);

  constructor(private readonly text: string) {}

  /** scan() for a line of an HTML block, where `#` starts no tag. */
  scanWithoutTags(start: number, end: number, line: number): void {
    this.tagsOff = true;
    try {
      this.scan(start, end, line);
    } finally {
      this.tagsOff = false;
    }
  }

  /**
   * Scans [start, end) (one line without its line break). `blockStart` marks where the line's
   * block content begins: an unclosed `<!--` there opens an HTML comment block to EOF.
   */
  scan(start: number, end: number, line: number, blockStart = start): void {
    const text = this.text;
    let i = start;
    let tailAt = -1; // `]` of a Markdown link whose text is being scanned
    let tailEnd = -1; // …and the index after its `)`
    let noTickClose = 0; // bit n: no closing backtick run of length n later on this line
    for (;;) {
      // Jump to the next interesting character (native search), or to the end of a link's text.
      const next = this.special.next(text, i);
      if (tailAt >= 0 && (next < 0 || next >= tailAt)) {
        if (tailEnd > i) i = tailEnd; // never move backwards (a code span may have crossed the `]`)
        tailAt = -1;
        continue;
      }
      if (next < 0 || next >= end) return;
      i = next;
      const c = text.charCodeAt(i);
      switch (c) {
        case 92: // \ escapes the next character
          i += 2;
          continue;
        case 96: {
          // ` code span: skip to a closing run of the same length on this line
          let n = 1;
          while (i + n < end && text.charCodeAt(i + n) === 96) n++;
          const bit = n < 31 ? 1 << n : 0;
          if (bit === 0 || (noTickClose & bit) === 0) {
            const close = findTickRun(text, i + n, end, n);
            if (close >= 0) {
              i = close + n;
              continue;
            }
            noTickClose |= bit;
          }
          i += n;
          continue;
        }
        case 37: // %% comment
          if (text.charCodeAt(i + 1) === 37) {
            const close = this.pctClose.next(text, i + 2);
            const until = close < 0 ? text.length : close + 2;
            if (until >= end) {
              this.hiddenUntil = until;
              return;
            }
            i = until;
            continue;
          }
          break;
        case 60: // <!-- html comment -->
          if (text.startsWith("<!--", i)) {
            const close = this.htmlClose.next(text, i + 4);
            if (close < 0 && i !== blockStart) {
              i += 4;
              continue;
            }
            const until = close < 0 ? text.length : close + 3;
            if (until >= end) {
              this.hiddenUntil = until;
              return;
            }
            i = until;
            continue;
          }
          break;
        case 36: // $$ math $$
          if (text.charCodeAt(i + 1) === 36) {
            const close = this.mathClose.next(text, i + 2);
            if (close < 0) {
              i += 2;
              continue;
            }
            if (close + 2 >= end) {
              this.hiddenUntil = close + 2;
              return;
            }
            i = close + 2;
            continue;
          }
          break;
        case 91: {
          // [ — wikilink/embed, else Markdown link/image
          const bang = i > start && text.charCodeAt(i - 1) === 33 && !(i - 2 >= start && text.charCodeAt(i - 2) === 92);
          if (text.charCodeAt(i + 1) === 91) {
            const close = this.wikiClose.next(text, i + 2);
            if (close >= 0 && close + 2 <= end) {
              const t = parseWikilinkContent(text.slice(i + 2, close));
              if (t) {
                const from = bang ? i - 1 : i;
                this.links.push({
                  embed: bang,
                  syntax: "wiki",
                  linkpath: t.linkpath,
                  subpath: t.subpath,
                  display: t.display,
                  raw: text.slice(from, close + 2),
                  line,
                  offset: from,
                });
                i = close + 2;
                continue;
              }
            }
            if (close < 0 || close + 2 > end) break;
            // Rejected (`[[ ]]`, a nested `[[`): the brackets may still open a Markdown link, `[[ ]](x)`.
          }
          if (tailAt >= 0) break; // no links inside link text
          const m = parseMarkdownLinkAt(text, i, end);
          if (!m) break;
          const t = markdownTarget(m.dest);
          const from = bang ? i - 1 : i;
          if (t) {
            this.links.push({
              embed: bang,
              syntax: "markdown",
              linkpath: t.linkpath,
              subpath: t.subpath,
              display: text.slice(i + 1, m.close),
              raw: text.slice(from, m.end),
              line,
              offset: from,
            });
          }
          if (bang) {
            i = m.end; // image alt text is not inline content
          } else {
            tailAt = m.close;
            tailEnd = m.end;
            i++;
          }
          continue;
        }
        case 35: {
          // # tag
          if (!this.tagsOff && tagMayStartAt(text, i, start)) {
            const e = tagEndAt(text, i, end);
            if (e > 0) {
              this.tags.push({ tag: text.slice(i + 1, e), line });
              i = e;
              continue;
            }
          }
          break;
        }
        case 58: {
          // scheme:// — skip a bare URL up to whitespace (its #fragment is not a tag)
          if (text.charCodeAt(i + 1) === 47 && text.charCodeAt(i + 2) === 47) {
            let j = i + 3;
            const stop = tailAt > i ? tailAt : end;
            while (j < stop) {
              const d = text.charCodeAt(j);
              if (d <= 32 || d === 60 || d === 62) break;
              j++;
            }
            i = j;
            continue;
          }
          break;
        }
      }
      i++;
    }
  }
}

/** Index of the next run of exactly `n` backticks in [from, end), or -1. */
function findTickRun(text: string, from: number, end: number, n: number): number {
  let j = from;
  while (j < end) {
    const k = text.indexOf("`", j);
    if (k < 0 || k >= end) return -1;
    let m = 1;
    while (k + m < end && text.charCodeAt(k + m) === 96) m++;
    if (m === n) return k;
    j = k + m;
  }
  return -1;
}
