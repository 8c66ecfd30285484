/**
 * The body ops: each resolves its target on a fresh structural view of the current text and
 * splices whole lines there. Nothing outside the spliced region is rewritten.
 */
import { IndxError } from "../core/errors.ts";
import { blockIdAtLineEnd, blockKey } from "../markdown/blocks.ts";
import { isBlankRange, skipSpaces, trimEndIndex } from "../markdown/chars.ts";
import { atxHeadingAt } from "../markdown/headings.ts";
import { resolveBlock } from "./block-target.ts";
import { resolveHeading } from "./resolve-heading.ts";
import { analyze, lineStartOf, type NoteStructure, sectionContentEnd } from "./structure.ts";
import { endsWithContentLine, lineContentEnd, spliceLines, toLines } from "./text.ts";

export interface RenamedHeading {
  /** The heading text before the rename, as written. */
  from: string;
  to: string;
  level: number;
}

/**
 * Splices `markdown` over [from, to) as whole lines. One addition: when the region ends right
 * where a setext heading starts and the new lines end with text, a blank line is added, because
 * Markdown would otherwise read that text as part of the heading (changing its text and breaking
 * links to it).
 */
function putLines(s: NoteStructure, from: number, to: number, markdown: string): string {
  let lines = toLines(markdown, s.eol);
  if (endsWithContentLine(lines) && s.headings.some((h) => h.setext && h.start === to)) lines += s.eol;
  return spliceLines(s.text, from, to, lines, s.eol).text;
}

export function appendBody(text: string, markdown: string): string {
  const s = analyze(text);
  return putLines(s, text.length, text.length, markdown);
}

/** Right after the frontmatter block (after a BOM when there is no frontmatter), else at the top. */
export function prependBody(text: string, markdown: string): string {
  const s = analyze(text);
  const at = s.frontmatter === null && text.charCodeAt(0) === 0xfeff ? 1 : s.bodyStart;
  return putLines(s, at, at, markdown);
}

export function insertBeforeHeading(text: string, heading: string, markdown: string): string {
  const s = analyze(text);
  const h = resolveHeading(s, heading);
  return putLines(s, h.start, h.start, markdown);
}

/** After the heading line; for a setext heading, after its underline. */
export function insertAfterHeading(text: string, heading: string, markdown: string): string {
  const s = analyze(text);
  const h = resolveHeading(s, heading);
  return putLines(s, h.end, h.end, markdown);
}

/**
 * Replaces everything between the heading and the section's last non-blank line (subsections
 * included). The blank lines that separate the section from the next heading are kept, so the
 * note's spacing survives; a user replacing a section's text does not mean to glue the next
 * heading to it.
 */
export function replaceSection(text: string, heading: string, markdown: string): string {
  const s = analyze(text);
  const h = resolveHeading(s, heading);
  return putLines(s, h.end, sectionContentEnd(s, h), markdown);
}

/**
 * Decision: appended content lands right after the section's last non-blank line (after its
 * subsections), not after the trailing blank lines. That is where a user reading the note expects
 * "the end of the section", and the blank-line separation before the next heading stays after
 * the new lines.
 */
export function appendToSection(text: string, heading: string, markdown: string): string {
  const s = analyze(text);
  const h = resolveHeading(s, heading);
  const at = sectionContentEnd(s, h);
  return putLines(s, at, at, markdown);
}

/**
 * Replaces the block that carries `^id` and keeps the id: when the new Markdown does not end with
 * it, ` ^id` is appended to its last non-blank line. For a detached id (its own line after a list,
 * table…) the block before it is replaced and the id line is kept, unless the new Markdown
 * carries the id itself.
 */
export function replaceBlock(text: string, blockId: string, markdown: string): string {
  const s = analyze(text);
  const target = resolveBlock(s, blockId);
  const normalized = markdown.replace(/\r\n?/g, "\n");
  const lines = (normalized.endsWith("\n") ? normalized.slice(0, -1) : normalized).split("\n");
  const last = lines.findLastIndex((line) => !isBlankRange(line, 0, line.length));
  const lastLine = lines[last];
  if (lastLine === undefined) {
    throw new IndxError("validation_failed", "replace_block needs non-empty markdown (the block id must stay attached to something).", {
      field: "markdown",
    });
  }
  const written = blockIdAtLineEnd(lastLine, 0, lastLine.length);
  const carriesId = written !== null && blockKey(written) === blockKey(target.id);
  if (target.idLine !== null) {
    return carriesId ? putLines(s, target.start, target.idLine.end, markdown) : putLines(s, target.start, target.end, markdown);
  }
  if (!carriesId) lines[last] = `${lastLine.replace(/[ \t]+$/, "")} ^${target.id}`;
  return putLines(s, target.start, target.end, lines.join("\n"));
}

/**
 * Changes only the heading's text: the #s, closing #s, indentation and a setext underline stay.
 * A multi-line setext heading becomes one line of text above the same underline.
 */
export function renameHeading(text: string, from: string, to: string): { text: string; renamed: RenamedHeading | null } {
  const newText = to.trim();
  if (newText === "" || /[\r\n]/.test(newText)) {
    throw new IndxError("validation_failed", "The new heading text must be non-empty and on one line.", { field: "to" });
  }
  const s = analyze(text);
  const h = resolveHeading(s, from);
  let out: string;
  if (h.setext) {
    const p = skipSpaces(text, h.start, lineContentEnd(text, h.start));
    const lastTextLine = lineStartOf(s.lineStarts, h.lastLineIndex - 1);
    const e = trimEndIndex(text, lastTextLine, lineContentEnd(text, lastTextLine));
    out = text.slice(0, p) + newText + text.slice(e);
  } else {
    const end = lineContentEnd(text, h.start);
    const m = atxHeadingAt(text, skipSpaces(text, h.start, end), end);
    if (!m) throw new IndxError("internal", "a heading the note's structure holds as ATX does not parse as one");
    // An addressable heading has text, so a space already separates it from the #s around it.
    out = text.slice(0, m.textStart) + newText + text.slice(m.textEnd);
  }
  const check = analyze(out).headings.find((x) => x.start === h.start);
  if (check === undefined || check.level !== h.level || check.text !== newText) {
    throw new IndxError("validation_failed", "The new heading text would not be read back as the same heading; choose other text.", {
      field: "to",
    });
  }
  return { text: out, renamed: h.text === newText ? null : { from: h.text, to: newText, level: h.level } };
}
