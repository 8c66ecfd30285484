/**
 * tag_rename planning: every note carrying a tag (or a nested child of it) gets the tag renamed in
 * its frontmatter `tags`/`tag` property and in its body, exactly where the indexer saw a tag.
 * The same pure plan serves the dry run and the apply (the caller re-checks each etag).
 */
import { isMap, isScalar, isSeq, parseDocument, type Scalar } from "yaml";
import { IndxError } from "../core/errors.ts";
import { frontmatterOf } from "../index/storage/json-columns.ts";
import type { IndexStore } from "../index/storage/store.ts";
import { readSource } from "../links/sources.ts";
import { splitFrontmatter } from "../markdown/frontmatter.ts";
import { parseNote } from "../markdown/parse.ts";
import { scanBody } from "../markdown/scanner.ts";
import { isTagChar } from "../markdown/tags.ts";
import type { Vault } from "../vault/vault.ts";
import { applySplices, type FileEdit, fileEdit, type Splice } from "../writes/edit.ts";
import { isValidTag } from "./valid.ts";

export interface TagRenamePlan {
  edits: FileEdit[];
  /** Notes that change. */
  notes: number;
  /** Tag occurrences rewritten (frontmatter items and body tags). */
  occurrences: number;
}

function checkTag(input: string, field: "from" | "to"): string {
  const tag = input.trim().replace(/^#/, "");
  if (!isValidTag(tag))
    throw new IndxError("validation_failed", `"${field}" is not a valid tag: use letters, numbers, _, - and / (nesting), not only digits.`, {
      field,
    });
  return tag;
}

/** Renames tags `from` and `from/…` (case-insensitively) to `to` and `to/…`. */
class TagMapper {
  private readonly lower: string;
  constructor(
    readonly from: string,
    readonly to: string,
  ) {
    this.lower = from.toLowerCase();
  }

  /** The renamed tag body, or null when `body` is neither `from` nor nested under it. */
  rename(body: string): string | null {
    const n = this.from.length;
    if (body.slice(0, n).toLowerCase() !== this.lower) return null;
    if (body.length !== n && body[n] !== "/") return null;
    return this.to + body.slice(n);
  }

  /** A frontmatter item: the same, keeping a leading `#` when the item has one. */
  renameItem(item: string): string | null {
    const hash = item.startsWith("#") ? "#" : "";
    const renamed = this.rename(item.slice(hash.length));
    return renamed === null ? null : hash + renamed;
  }
}

export function planTagRename(vault: Vault, index: IndexStore, from: string, to: string): TagRenamePlan {
  const mapper = new TagMapper(checkTag(from, "from"), checkTag(to, "to"));
  const edits: FileEdit[] = [];
  let occurrences = 0;
  if (mapper.from === mapper.to) return { edits, notes: 0, occurrences };
  for (const path of notesCarrying(index, mapper.from)) {
    const file = readSource(vault, path);
    if (!file) continue;
    const splices = [...frontmatterSplices(file.text, mapper), ...bodySplices(file.text, mapper)];
    const text = applySplices(file.text, splices);
    verify(path, file.text, text, mapper);
    const edit = fileEdit(path, file.text, text, file.bytes);
    if (!edit) continue;
    edits.push(edit);
    occurrences += splices.length;
  }
  return { edits, notes: edits.length, occurrences };
}

/**
 * Notes the index saw carrying the tag or a nested child, plus notes whose legacy `tag` property
 * holds it (Obsidian no longer reads `tag`, so the index has no rows for those; Dataview still does).
 */
function notesCarrying(index: IndexStore, tag: string): string[] {
  const lower = tag.toLowerCase();
  const paths = new Set(index.tags.notePathsWith(lower));
  const mapper = new TagMapper(tag, tag);
  for (const row of index.tags.legacyTagNotes()) {
    const fm = frontmatterOf(row) ?? {};
    for (const [key, value] of Object.entries(fm)) {
      if (!/^tag$/i.test(key)) continue;
      const items = Array.isArray(value) ? value : typeof value === "string" ? value.split(/[,\s]+/) : [];
      if (items.some((v) => typeof v === "string" && mapper.renameItem(v.trim()) !== null)) paths.add(row.path);
    }
  }
  return [...paths].sort();
}

/**
 * Frontmatter `tags`/`tag` values (any key case), edited in place through the YAML node ranges so
 * quoting, list style, comments and every other key stay as written. A string value holding
 * several tags (`a, b` or `a b`, read by Dataview and older Obsidian) is edited token by token.
 */
function frontmatterSplices(text: string, mapper: TagMapper): Splice[] {
  const fm = splitFrontmatter(text);
  if (!fm) return [];
  const doc = parseDocument(fm.yaml, { keepSourceTokens: false });
  if (doc.errors.length > 0 || !isMap(doc.contents)) return [];
  const out: Splice[] = [];
  const scalar = (node: unknown) => {
    if (!isScalar(node) || typeof node.value !== "string" || !node.range) return;
    const s = node as Scalar<string>;
    const range = node.range;
    const type = s.type;
    if (type !== "PLAIN" && type !== "QUOTE_DOUBLE" && type !== "QUOTE_SINGLE") return; // block scalars: leave alone
    const quoted = type !== "PLAIN" ? 1 : 0;
    const start = range[0] + quoted;
    const end = range[1] - quoted;
    const source = fm.yaml.slice(start, end);
    // A quoted value with escapes is not the text it shows; tags never need escapes, so skip it.
    if (type === "QUOTE_DOUBLE" && source.includes("\\")) return;
    for (const m of source.matchAll(/[^,\s]+/g)) {
      const renamed = mapper.renameItem(m[0]);
      if (renamed !== null) out.push({ start: fm.yamlOffset + start + m.index, end: fm.yamlOffset + start + m.index + m[0].length, text: renamed });
    }
  };
  for (const pair of doc.contents.items) {
    const key = isScalar(pair.key) ? pair.key.value : pair.key;
    if (typeof key !== "string" || !/^tags?$/i.test(key)) continue;
    if (isSeq(pair.value)) for (const item of pair.value.items) scalar(item);
    else scalar(pair.value);
  }
  return out;
}

/**
 * Body tags, found by the indexer's own scanner: every `#run` whose run of tag characters is the
 * tag (or nested under it) is swapped for a unique marker tag, the body is scanned once, and the
 * markers the scanner reports as tags are the occurrences to rename. Code, comments, links, URLs
 * and escapes are therefore skipped exactly as the indexer skips them. Tag characters are never
 * scanner syntax, so swapping one run for another changes nothing else about the scan.
 */
function bodySplices(text: string, mapper: TagMapper): Splice[] {
  const fm = splitFrontmatter(text);
  const bodyOffset = fm ? fm.bodyOffset : 0;
  const bodyLine = fm ? fm.bodyLine : 1;
  const candidates: { start: number; end: number; renamed: string; marker: string }[] = [];
  let salt = "indxtag";
  while (text.toLowerCase().includes(salt)) salt += "x";
  for (let i = text.indexOf("#", bodyOffset); i >= 0; ) {
    let j = i + 1;
    while (j < text.length && isTagChar(text.charCodeAt(j))) j++;
    const renamed = mapper.rename(text.slice(i + 1, j));
    if (renamed !== null) candidates.push({ start: i + 1, end: j, renamed, marker: `${salt}${candidates.length}z` });
    i = text.indexOf("#", Math.max(j, i + 1));
  }
  if (candidates.length === 0) return [];
  const marked = applySplices(
    text,
    candidates.map((c) => ({ start: c.start, end: c.end, text: c.marker })),
  );
  const seen = new Set(scanBody(marked, bodyOffset, bodyLine).tags.map((t) => t.tag));
  return candidates.filter((c) => seen.has(c.marker)).map((c) => ({ start: c.start, end: c.end, text: c.renamed }));
}

/** The planned text must carry the same tag occurrences, renamed, and nothing else different. */
function verify(path: string, before: string, after: string, mapper: TagMapper): void {
  if (before === after) return;
  const expected = parseNote(before).tagOccurrences.map((o) => mapper.rename(o.tag) ?? o.tag);
  const actual = parseNote(after).tagOccurrences.map((o) => o.tag);
  if (expected.length !== actual.length || expected.some((t, i) => t !== actual[i]))
    throw new IndxError("internal", `Could not plan a tag rename in ${path} that the indexer reads back as planned.`, { path });
}
