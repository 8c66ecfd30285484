/**
 * Planners for link rewrites across the vault: note_move (every link to the moved file, and every
 * link the move would otherwise silently retarget) and rename_heading (every `#Old` subpath that
 * points at the renamed heading). Pure planning: files are read, nothing is written; the caller's
 * write pipeline checks each FileEdit's etag and writes.
 */

import { type JsonStringSpan, jsonStringSpans } from "../canvas/json-spans.ts";
import { IndxError } from "../core/errors.ts";
import type { IndexStore } from "../index/storage/store.ts";
import { headingKey, stripHeadingForLink } from "../markdown/headings.ts";
import { linksInString } from "../markdown/links.ts";
import { parseNote } from "../markdown/parse.ts";
import type { LinkRef } from "../markdown/types.ts";
import { keysForFile, LinkResolver } from "../vault/link-resolver.ts";
import { readObsidianApp } from "../vault/obsidian-app.ts";
import type { Vault } from "../vault/vault.ts";
import { applySplices, type FileEdit, fileEdit, type Splice } from "../writes/edit.ts";
import { type LinkFormat, linktextCandidates } from "./link-text.ts";
import { encodeMarkdownPath, fitsWikilink, type TokenParts, tokenParts, withPath, withSubpath } from "./link-token.ts";
import { readSource, type SourceFile } from "./sources.ts";

export interface LinkPlan {
  edits: FileEdit[];
}

/** The vault before and after the move, and how links are to be written. */
interface MoveWorld {
  from: string;
  to: string;
  before: LinkResolver;
  after: LinkResolver;
  format: LinkFormat;
}

/**
 * Plans the link rewrites for moving `from` (a note or attachment) to `to`; the caller renames the
 * file itself. Rewritten: every link, embed, Markdown link and frontmatter link that resolves to
 * `from` (written in the vault's `newLinkFormat`, keeping syntax, alias and subpath); links inside
 * the moved note that would resolve elsewhere from its new folder; links elsewhere that a file
 * named like `to` would capture; in `.canvas` files, file nodes and group backgrounds naming `from`
 * and links in text cards.
 */
export function planMove(vault: Vault, index: IndexStore, from: string, to: string): LinkPlan {
  const paths = index.files.paths();
  if (!paths.includes(from)) throw new IndxError("not_found", `File not found: ${from}`, { path: from });
  if (from === to) return { edits: [] };
  if (paths.includes(to)) throw new IndxError("already_exists", `A file already exists at ${to}`, { path: to });
  const world: MoveWorld = {
    from,
    to,
    before: new LinkResolver(paths),
    after: new LinkResolver(paths.filter((p) => p !== from).concat(to)),
    format: readObsidianApp(vault.root).newLinkFormat,
  };

  const sources = new Set([...index.links.sourcesLinkingTo(from), ...index.links.sourcesByTargetKey(keysForFile(to))]);
  if (/\.md$/i.test(from)) sources.add(from);
  const edits: FileEdit[] = [];
  for (const path of [...sources].sort()) {
    const file = readSource(vault, path);
    if (!file) continue;
    const edit = planMoveInNote(file, world);
    if (edit) edits.push(edit);
  }
  for (const path of index.files.canvasPaths()) {
    const file = readSource(vault, path);
    const edit = file && planMoveInCanvas(file, world);
    if (edit) edits.push(edit);
  }
  return { edits };
}

/** What a link resolved to before the move and must resolve to after it. */
function intendedTarget(link: LinkRef, srcBefore: string, w: MoveWorld): string | null {
  const before = w.before.resolve(link.linkpath, srcBefore);
  return before === null ? null : before === w.from ? w.to : before;
}

function planMoveInNote(file: SourceFile, w: MoveWorld): FileEdit | null {
  const text = rewriteForMove(file.text, file.path, w, file.path);
  return fileEdit(file.path, file.text, text, file.bytes);
}

/**
 * The links of one Markdown text (a note, or a canvas text card) living at `source`, rewritten
 * for the move. `where` names the file in errors.
 */
function rewriteForMove(original: string, source: string, w: MoveWorld, where: string): string {
  const srcAfter = source === w.from ? w.to : source;
  const links = parseNote(original).links;
  const splices: Splice[] = [];
  for (const link of links) {
    if (link.linkpath === "") continue; // `[[#H]]` follows its note wherever it goes
    const target = intendedTarget(link, source, w);
    if (target === null) continue;
    const pointsAtMoved = target === w.to;
    // A link to another file is left exactly as written while it still lands there unambiguously.
    if (!pointsAtMoved && w.after.resolve(link.linkpath, srcAfter) === target && !becomesAmbiguous(link, source, srcAfter, w)) continue;
    const format: LinkFormat = !pointsAtMoved && /^\.\.?\//.test(link.linkpath) ? "relative" : w.format;
    const token = retargetedToken(link.raw, target, srcAfter, format, w.after, !pointsAtMoved && link.linkpath.startsWith("./"));
    if (token !== link.raw) splices.push(spliceAt(original, where, link, token));
  }
  const text = applySplices(original, splices);
  verifyMove(original, text, links, source, w, where);
  return text;
}

/**
 * A link that named exactly one file and, with the moved file arriving, names several: it still
 * resolves by Obsidian's proximity and length rules (and a tie by load order, which indx cannot
 * know), so it gets the longer text Obsidian would write for it now.
 */
function becomesAmbiguous(link: LinkRef, source: string, srcAfter: string, w: MoveWorld): boolean {
  return w.before.candidates(link.linkpath, source).length === 1 && w.after.candidates(link.linkpath, srcAfter).length > 1;
}

/** Re-parses the planned text: every link that resolved before must land on its intended target. */
function verifyMove(original: string, text: string, before: LinkRef[], source: string, w: MoveWorld, where: string): void {
  const srcAfter = source === w.from ? w.to : source;
  if (text === original && srcAfter === source) return;
  const after = parseNote(text).links;
  if (after.length !== before.length) throw planBroken(where, before[0]?.line ?? 1);
  before.forEach((link, i) => {
    if (link.linkpath === "") return;
    const target = intendedTarget(link, source, w);
    const moved = after[i];
    if (target !== null && (moved === undefined || w.after.resolve(moved.linkpath, srcAfter) !== target)) throw planBroken(where, link.line);
  });
}

function planBroken(path: string, line: number): IndxError {
  return new IndxError("internal", `Could not plan a link update that keeps every link of ${path} resolving.`, { path, line });
}

/** A splice replacing `link.raw` where the parser found it; refuses when the text there differs. */
function spliceAt(text: string, where: string, link: LinkRef, token: string): Splice {
  if (!text.startsWith(link.raw, link.offset))
    throw new IndxError("parse_failed", `Cannot locate a link in ${where} to rewrite it (line ${link.line}).`, {
      path: where,
      line: link.line,
    });
  return { start: link.offset, end: link.offset + link.raw.length, text: token };
}

/**
 * `raw` rewritten to point at `target` from `source`, in `format` when that resolves back to the
 * target, else in the first form that does (see linktextCandidates). Subpath, alias, link text
 * and embed marker are kept.
 */
function retargetedToken(raw: string, target: string, source: string, format: LinkFormat, resolver: LinkResolver, keepDotSlash: boolean): string {
  const parts = tokenParts(raw);
  if (!parts) throw new IndxError("parse_failed", "Unrecognised link syntax.", { path: source });
  let texts = linktextCandidates(target, source, format, resolver, parts.wiki);
  const [shortest] = texts;
  if (keepDotSlash && shortest !== undefined && !shortest.startsWith("../")) texts = [`./${shortest}`, ...texts];
  for (const text of texts) {
    for (const token of tokenForms(raw, parts, text)) {
      const parsed = linksInString(token);
      const [only] = parsed;
      if (parsed.length === 1 && only?.raw === token && resolver.resolve(only.linkpath, source) === target) return token;
    }
  }
  throw new IndxError("validation_failed", `No link text Obsidian would resolve to ${target} can be written here.`, { path: target });
}

/** The ways to write `path` into a token: wikilinks as is; Markdown links URL-encoded, or in `<...>`. */
function tokenForms(raw: string, parts: TokenParts, path: string): string[] {
  if (parts.wiki) return fitsWikilink(path) ? [withPath(raw, parts, path)] : [];
  const encoded = withPath(raw, parts, encodeMarkdownPath(path, parts.angle));
  if (parts.angle) return [encoded];
  const angled = `${raw.slice(0, parts.pathStart)}<${path}${raw.slice(parts.pathEnd, parts.subEnd)}>${raw.slice(parts.subEnd)}`;
  return [encoded, angled];
}

/**
 * Canvas references: file nodes' `file` and group nodes' `background` naming `from`, and links in
 * text cards (Markdown, resolved from the canvas's own path). Only those string literals change.
 */
function planMoveInCanvas(file: SourceFile, w: MoveWorld): FileEdit | null {
  const splices: Splice[] = [];
  const spans = canvasSpans(file);
  const types = nodeTypes(spans);
  for (const s of spans) {
    if (s.path.length !== 3 || s.path[0] !== "nodes") continue;
    const key = s.path[2];
    if ((key === "file" || key === "background") && s.value === w.from) splices.push({ start: s.start, end: s.end, text: JSON.stringify(w.to) });
    if (key === "text" && types.get(s.path[1]) === "text" && s.value.includes("[")) {
      const text = rewriteForMove(s.value, file.path, w, file.path);
      if (text !== s.value) splices.push({ start: s.start, end: s.end, text: JSON.stringify(text) });
    }
  }
  return fileEdit(file.path, file.text, applySplices(file.text, splices), file.bytes);
}

/** Node index → node type, from a canvas's string spans. */
function nodeTypes(spans: JsonStringSpan[]): Map<unknown, string> {
  const out = new Map<unknown, string>();
  for (const s of spans) if (s.path.length === 3 && s.path[0] === "nodes" && s.path[2] === "type") out.set(s.path[1], s.value);
  return out;
}

/** String values of a canvas; a file that is not JSON holds no references we could edit. */
function canvasSpans(file: SourceFile): JsonStringSpan[] {
  try {
    return jsonStringSpans(file.text);
  } catch {
    return [];
  }
}

// ---------------------------------------------------------------------------------------------
// rename_heading

/**
 * Plans the link updates for renaming heading `fromHeading` of note `path` to `toHeading`: every
 * link to `path` whose subpath starts with a heading matching `fromHeading` (Obsidian matching,
 * headingKey) gets the new heading (as stripHeadingForLink writes it). `selfText` is the note's new
 * text (heading already renamed); the note's own edit is based on it and covers `[[#Old]]` links.
 */
export function planHeadingRename(vault: Vault, index: IndexStore, path: string, fromHeading: string, toHeading: string, selfText?: string): LinkPlan {
  const paths = index.files.paths();
  if (!paths.includes(path)) throw new IndxError("not_found", `Note not found: ${path}`, { path });
  const oldKey = headingKey(fromHeading);
  const newPart = stripHeadingForLink(toHeading);
  if (oldKey === "") throw new IndxError("validation_failed", "The heading to rename is empty.", { field: "from" });
  if (newPart === "") throw new IndxError("validation_failed", "The new heading is empty.", { field: "to" });
  const resolver = new LinkResolver(paths);
  const rename: HeadingRename = { path, oldKey, newPart, resolver };

  const edits: FileEdit[] = [];
  const sources = new Set(index.links.sourcesLinkingTo(path));
  sources.add(path);
  for (const source of [...sources].sort()) {
    const file = readSource(vault, source);
    if (!file) continue;
    const base = source === path && selfText !== undefined ? selfText : file.text;
    const text = renameHeadingLinks(source, base, rename);
    const edit = fileEdit(source, file.text, text, file.bytes);
    if (edit) edits.push(edit);
  }
  for (const source of index.files.canvasPaths()) {
    const file = readSource(vault, source);
    const edit = file && renameHeadingInCanvas(file, rename);
    if (edit) edits.push(edit);
  }
  return { edits };
}

interface HeadingRename {
  path: string;
  oldKey: string;
  newPart: string;
  resolver: LinkResolver;
}

/** `subpath` with its first heading replaced when it matches, else null (blocks never match). */
function renamedSubpath(subpath: string, r: HeadingRename, encode: (s: string) => string): string | null {
  let start = 0;
  while (subpath[start] === "#") start++;
  if (start === 0 || subpath[start] === "^") return null;
  let end = subpath.indexOf("#", start);
  if (end < 0) end = subpath.length;
  const part = subpath.slice(start, end);
  let decoded = part;
  try {
    decoded = decodeURI(part);
  } catch {}
  if (headingKey(decoded) !== r.oldKey) return null;
  return subpath.slice(0, start) + encode(r.newPart) + subpath.slice(end);
}

function renameHeadingLinks(source: string, text: string, r: HeadingRename): string {
  const splices: Splice[] = [];
  for (const link of parseNote(text).links) {
    if (link.subpath === "" || r.resolver.resolve(link.linkpath, source) !== r.path) continue;
    const parts = tokenParts(link.raw);
    if (!parts || !text.startsWith(link.raw, link.offset)) continue;
    const rawSub = link.raw.slice(parts.pathEnd, parts.subEnd);
    const encode = parts.wiki || parts.angle ? (s: string) => s : (s: string) => encodeURI(s);
    const sub = renamedSubpath(rawSub, r, encode);
    if (sub !== null) splices.push({ start: link.offset, end: link.offset + link.raw.length, text: withSubpath(link.raw, parts, sub) });
  }
  return applySplices(text, splices);
}

/** Canvas file nodes showing `path#Old…` (their `subpath`) and links in text cards. */
function renameHeadingInCanvas(file: SourceFile, r: HeadingRename): FileEdit | null {
  const spans = canvasSpans(file);
  const fileOf = new Map<unknown, string>();
  for (const s of spans) if (s.path.length === 3 && s.path[0] === "nodes" && s.path[2] === "file") fileOf.set(s.path[1], s.value);
  const types = nodeTypes(spans);
  const splices: Splice[] = [];
  for (const s of spans) {
    if (s.path.length !== 3 || s.path[0] !== "nodes") continue;
    if (s.path[2] === "subpath" && fileOf.get(s.path[1]) === r.path) {
      const sub = renamedSubpath(s.value, r, (x) => x);
      if (sub !== null) splices.push({ start: s.start, end: s.end, text: JSON.stringify(sub) });
    }
    if (s.path[2] === "text" && types.get(s.path[1]) === "text" && s.value.includes("#")) {
      const text = renameHeadingLinks(file.path, s.value, r);
      if (text !== s.value) splices.push({ start: s.start, end: s.end, text: JSON.stringify(text) });
    }
  }
  return fileEdit(file.path, file.text, applySplices(file.text, splices), file.bytes);
}
