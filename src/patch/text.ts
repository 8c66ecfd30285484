/**
 * Line-level text helpers for the patch engine. Every edit is a splice of whole lines at line
 * boundaries, so the bytes around the touched region (line endings, blank lines, the presence or
 * absence of a final newline) are never rewritten.
 */
import { isBlankRange } from "../markdown/chars.ts";

export type Eol = "\n" | "\r\n";

/** The note's line-ending style: CRLF when its first line ending is CRLF, else LF. */
export function noteEol(text: string): Eol {
  const nl = text.indexOf("\n");
  return nl > 0 && text.charCodeAt(nl - 1) === 13 ? "\r\n" : "\n";
}

/**
 * Caller-supplied Markdown as a run of whole lines in the note's style: every line ending
 * (CRLF, lone CR, LF) becomes `eol`, and a final line ending is added when missing.
 * The empty string stays empty: it means "no lines".
 */
export function toLines(markdown: string, eol: Eol): string {
  if (markdown === "") return "";
  let s = markdown.replace(/\r\n?/g, "\n");
  if (!s.endsWith("\n")) s += "\n";
  return eol === "\n" ? s : s.replace(/\n/g, eol);
}

/** Index just past the line break of the line containing `pos` (or text.length). */
export function nextLineStart(text: string, pos: number): number {
  const nl = text.indexOf("\n", pos);
  return nl < 0 ? text.length : nl + 1;
}

/** End of the line's content (before CR LF / LF) for the line starting at `start`. */
export function lineContentEnd(text: string, start: number): number {
  const nl = text.indexOf("\n", start);
  if (nl < 0) return text.length;
  return nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
}

export function isBlankLineAt(text: string, start: number): boolean {
  return isBlankRange(text, start, lineContentEnd(text, start));
}

/** True when the text's last line has no line break after it (and the text is not empty). */
export function lacksFinalNewline(text: string): boolean {
  return text.length > 0 && text.charCodeAt(text.length - 1) !== 10;
}

export interface Splice {
  /** [from, to) of the original text that was replaced. */
  from: number;
  to: number;
  /** What now stands in its place. */
  inserted: string;
  text: string;
}

/**
 * Replaces [from, to) — both line boundaries (a line start or text.length) — with `lines`
 * (the output of `toLines`).
 *
 * The one place where a region touches an unterminated last line: the note keeps having no final
 * newline. When the region runs to the end of such a note the inserted lines lose their last line
 * break, and when it starts there (appending after the last line) a line break is put in front.
 */
export function spliceLines(text: string, from: number, to: number, lines: string, eol: Eol): Splice {
  let inserted = lines;
  if (to === text.length && lacksFinalNewline(text) && inserted !== "") {
    if (from === text.length) inserted = eol + inserted;
    inserted = inserted.slice(0, inserted.length - (inserted.endsWith("\r\n") ? 2 : 1));
  }
  return { from, to, inserted, text: text.slice(0, from) + inserted + text.slice(to) };
}

/** True when the last line of `lines` (toLines output) has visible content. */
export function endsWithContentLine(lines: string): boolean {
  if (lines === "") return false;
  const body = lines.replace(/\r?\n$/, "");
  const lastNl = body.lastIndexOf("\n");
  return !isBlankRange(body, lastNl + 1, body.length);
}
