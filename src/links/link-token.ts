/**
 * Surgery on one link token (`[[Note#H|alias]]`, `![x](Note%20A.md#H "t")`): where its path and
 * subpath sit in the raw text, and the token with either replaced. Everything else in the token
 * (the `!`, alias or link text, title, spacing, `\|` escapes) stays as written.
 */
import { parseMarkdownLinkAt } from "../markdown/links.ts";

export interface TokenParts {
  wiki: boolean;
  /** Markdown destination written as `<...>`. */
  angle: boolean;
  /** [pathStart, pathEnd): the linkpath as written (encoded for Markdown links). */
  pathStart: number;
  pathEnd: number;
  /** [pathEnd, subEnd): the subpath as written, starting with `#`, or empty. */
  subEnd: number;
}

const isWs = (c: string | undefined) => c !== undefined && /\s/.test(c);

/** The parts of a wikilink/embed or Markdown link token; null when `raw` is neither. */
export function tokenParts(raw: string): TokenParts | null {
  const bang = raw.startsWith("!") ? 1 : 0;
  if (raw.startsWith("[[", bang) && raw.endsWith("]]")) {
    const close = raw.length - 2;
    let start = bang + 2;
    while (start < close && isWs(raw[start])) start++;
    // The href ends at the first `|` after its first character (the alias separator)…
    const bar = raw.indexOf("|", start + 1);
    let end = bar >= 0 && bar < close ? bar : close;
    while (end > start && isWs(raw[end - 1])) end--;
    // …minus the `\` that escapes that `|` inside tables.
    if (end < close && raw[end - 1] === "\\" && bar >= 0 && bar < close) end--;
    while (end > start && isWs(raw[end - 1])) end--;
    const hash = raw.indexOf("#", start);
    const pathEnd = hash >= 0 && hash < end ? hash : end;
    return { wiki: true, angle: false, pathStart: start, pathEnd, subEnd: end };
  }
  if (raw[bang] !== "[") return null;
  const m = parseMarkdownLinkAt(raw, bang, raw.length);
  if (!m || m.end !== raw.length) return null;
  let start = m.close + 2;
  while (raw[start] === " " || raw[start] === "\t") start++;
  const angle = raw[start] === "<";
  if (angle) start++;
  const end = start + m.dest.length;
  const hash = raw.indexOf("#", start);
  const pathEnd = hash >= 0 && hash < end ? hash : end;
  return { wiki: false, angle, pathStart: start, pathEnd, subEnd: end };
}

/** The token with its path part replaced by `path` (already in the token's encoding). */
export function withPath(raw: string, parts: TokenParts, path: string): string {
  return raw.slice(0, parts.pathStart) + path + raw.slice(parts.pathEnd);
}

/** The token with its subpath part replaced by `subpath` (with its `#`, already encoded). */
export function withSubpath(raw: string, parts: TokenParts, subpath: string): string {
  return raw.slice(0, parts.pathEnd) + subpath + raw.slice(parts.subEnd);
}

/**
 * A vault path as a Markdown link destination. Obsidian URL-encodes it (`encodeURI`: spaces become
 * `%20`); a destination already written as `<...>` keeps that form and needs no encoding.
 */
export function encodeMarkdownPath(path: string, angle: boolean): string {
  return angle ? path : encodeURI(path);
}

/** Characters that end or split a wikilink href, so a path containing them cannot be a wikilink. */
export function fitsWikilink(path: string): boolean {
  return !/[#|]|\[\[|]]/.test(path);
}
