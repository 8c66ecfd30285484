/**
 * Link syntax (docs/obsidian.md, Links): wikilinks `[[...]]`, embeds `![[...]]`, Markdown links
 * `[t](dest)` and images `![t](dest)`. These helpers parse one occurrence; the body scanner
 * (inline.ts) decides where to look (outside code, comments and escapes).
 */
import { isAsciiPunct, isSpaceOrTab } from "./chars.ts";

export interface LinkTarget {
  linkpath: string;
  subpath: string;
}

export interface WikiTarget extends LinkTarget {
  display: string | null;
}

/** `parseLinktext`: split at the first `#` into path and subpath (`#H1#H2`, `#^id`). */
export function splitSubpath(href: string): LinkTarget {
  const h = href.indexOf("#");
  return h < 0 ? { linkpath: href, subpath: "" } : { linkpath: href.slice(0, h), subpath: href.slice(h) };
}

/**
 * The contents between `[[` and the first `]]`. Returns null when Obsidian would reject the match:
 * empty after trimming, spanning a line break, or containing a nested `[[`.
 */
export function parseWikilinkContent(inner: string): WikiTarget | null {
  if (inner.indexOf("\n") >= 0 || inner.indexOf("[[") >= 0) return null;
  const content = inner.trim();
  if (content === "") return null;
  let href = content;
  let display: string | null = null;
  const bar = content.indexOf("|");
  if (bar > 0) {
    href = content.slice(0, bar);
    display = content.slice(bar + 1).trim();
    // Inside tables the pipe is written `\|`: drop the escaping backslash from the href.
    if (href.endsWith("\\")) href = href.slice(0, -1);
    href = href.trim();
  }
  const t = splitSubpath(href.normalize("NFC"));
  return { linkpath: t.linkpath, subpath: t.subpath, display };
}

/** A Markdown link/image match: `[` at `open`, `]` at `close`, whole link ends before `end`. */
export interface MarkdownLinkMatch {
  open: number;
  close: number;
  end: number;
  dest: string;
}

/** Bounds on how far one link attempt looks ahead, so long lines stay linear. */
const MAX_LINK_TEXT = 1000;
const MAX_LINK_DEST = 2048;

/**
 * Parses `[text](dest "title")` starting at the `[` at index `i`, staying before `lineEnd`.
 * Follows CommonMark for the destination: `<...>` (may contain spaces) or a space-free run with
 * balanced parentheses, then an optional quoted/parenthesised title.
 */
export function parseMarkdownLinkAt(text: string, i: number, lineEnd: number): MarkdownLinkMatch | null {
  // Link text: balanced brackets, backslash escapes honoured.
  let depth = 0;
  let j = i + 1;
  const limit = Math.min(lineEnd, i + 1 + MAX_LINK_TEXT);
  let close = -1;
  while (j < limit) {
    const c = text.charCodeAt(j);
    if (c === 92) {
      j += 2;
      continue;
    }
    if (c === 96) {
      // A code span binds tighter than the link text: skip it whole.
      j = skipCodeSpan(text, j, limit);
      continue;
    }
    if (c === 91) depth++;
    else if (c === 93) {
      if (depth === 0) {
        close = j;
        break;
      }
      depth--;
    }
    j++;
  }
  if (close < 0 || close + 1 >= lineEnd || text.charCodeAt(close + 1) !== 40 /* ( */) return null;
  lineEnd = Math.min(lineEnd, close + 2 + MAX_LINK_DEST);
  let k = close + 2;
  while (k < lineEnd && isSpaceOrTab(text.charCodeAt(k))) k++;
  let dest: string;
  if (text.charCodeAt(k) === 60 /* < */) {
    let g = k + 1;
    while (g < lineEnd) {
      const c = text.charCodeAt(g);
      if (c === 92) {
        g += 2;
        continue;
      }
      if (c === 62 /* > */ || c === 60) break;
      g++;
    }
    if (g >= lineEnd || text.charCodeAt(g) !== 62) return null;
    dest = text.slice(k + 1, g);
    k = g + 1;
  } else {
    const start = k;
    let parens = 0;
    while (k < lineEnd) {
      const c = text.charCodeAt(k);
      if (c === 92 && k + 1 < lineEnd) {
        k += 2;
        continue;
      }
      if (c <= 32) break;
      if (c === 40) parens++;
      else if (c === 41) {
        if (parens === 0) break;
        parens--;
      }
      k++;
    }
    dest = text.slice(start, k);
  }
  const afterDest = k;
  while (k < lineEnd && isSpaceOrTab(text.charCodeAt(k))) k++;
  const q = text.charCodeAt(k);
  if (k > afterDest && (q === 34 || q === 39 || q === 40)) {
    const closer = q === 40 ? 41 : q;
    let t = k + 1;
    while (t < lineEnd) {
      const c = text.charCodeAt(t);
      if (c === 92) {
        t += 2;
        continue;
      }
      if (c === closer) break;
      t++;
    }
    if (t >= lineEnd) return null;
    k = t + 1;
    while (k < lineEnd && isSpaceOrTab(text.charCodeAt(k))) k++;
  }
  if (k >= lineEnd || text.charCodeAt(k) !== 41 /* ) */) return null;
  return { open: i, close, end: k + 1, dest };
}

/** Index after the code span opening at `i` (or after its backtick run when it is unclosed). */
function skipCodeSpan(text: string, i: number, end: number): number {
  let n = 1;
  while (i + n < end && text.charCodeAt(i + n) === 96) n++;
  let j = i + n;
  while (j < end) {
    if (text.charCodeAt(j) !== 96) {
      j++;
      continue;
    }
    let m = 1;
    while (j + m < end && text.charCodeAt(j + m) === 96) m++;
    if (m === n) return j + m;
    j += m;
  }
  return i + n;
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** True for destinations that are not vault links: `https:`, `mailto:`, `obsidian:`, `//host`. */
export function isExternalDest(dest: string): boolean {
  return SCHEME.test(dest) || dest.startsWith("//");
}

function unescapeDest(dest: string): string {
  if (dest.indexOf("\\") < 0) return dest;
  let out = "";
  for (let i = 0; i < dest.length; i++) {
    const c = dest.charCodeAt(i);
    if (c === 92 && i + 1 < dest.length && isAsciiPunct(dest.charCodeAt(i + 1))) {
      out += dest[i + 1];
      i++;
    } else out += dest[i];
  }
  return out;
}

/**
 * Destination of a Markdown link → vault target, or null for external/empty destinations.
 * The destination is `decodeURI`d (kept raw on a bad escape), NFC-normalised, split at the first `#`.
 */
export function markdownTarget(rawDest: string): LinkTarget | null {
  const dest = unescapeDest(rawDest.trim());
  if (dest === "" || isExternalDest(dest)) return null;
  let decoded = dest;
  if (dest.indexOf("%") >= 0) {
    try {
      decoded = decodeURI(dest);
    } catch {
      decoded = dest;
    }
  }
  return splitSubpath(decoded.normalize("NFC"));
}

/** One link found in a plain string (frontmatter values). */
export interface StringLink extends WikiTarget {
  embed: boolean;
  wiki: boolean;
  raw: string;
  index: number; // index of `raw` in the string
}

/** All wikilinks and internal Markdown links in a plain string (no code/comment handling). */
export function linksInString(s: string): StringLink[] {
  const out: StringLink[] = [];
  let i = s.indexOf("[");
  while (i >= 0 && i < s.length) {
    const embed = i > 0 && s.charCodeAt(i - 1) === 33; /* ! */
    if (s.charCodeAt(i + 1) === 91) {
      const close = s.indexOf("]]", i + 2);
      if (close < 0) break;
      const t = parseWikilinkContent(s.slice(i + 2, close));
      if (t) {
        const from = embed ? i - 1 : i;
        out.push({ ...t, embed, wiki: true, raw: s.slice(from, close + 2), index: from });
        i = s.indexOf("[", close + 2);
        continue;
      }
    } else {
      const nl = s.indexOf("\n", i);
      const m = parseMarkdownLinkAt(s, i, nl < 0 ? s.length : nl);
      if (m) {
        const t = markdownTarget(m.dest);
        if (t) {
          const from = embed ? i - 1 : i;
          out.push({ ...t, display: s.slice(i + 1, m.close), embed, wiki: false, raw: s.slice(from, m.end), index: from });
        }
        i = s.indexOf("[", m.end);
        continue;
      }
    }
    i = s.indexOf("[", i + 1);
  }
  return out;
}
