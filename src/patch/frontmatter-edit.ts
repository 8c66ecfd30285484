/**
 * set_frontmatter / delete_frontmatter as surgical line edits of the YAML text. Only the lines of
 * the one entry being changed are rewritten: every other key, its order, comments, quoting and
 * blank lines stay byte-identical. (Obsidian's own processFrontMatter re-serialises the whole
 * block and loses comments; indx is deliberately stricter.)
 *
 * After each edit the block is parsed again with the project's frontmatter parser: the edited key
 * must hold the new value and every other key its old one. A layout this line editor cannot
 * handle safely (JSON frontmatter, multi-line flow collections…) fails with parse_failed instead of
 * being written wrong.
 */
import { IndxError } from "../core/errors.ts";
import { type FrontmatterBlock, parseFrontmatterYaml, splitFrontmatter } from "../markdown/frontmatter.ts";
import { noteEol } from "./text.ts";
import { emitKey, entryLines, normalizeValue, type YamlValue } from "./yaml-value.ts";

/** One top-level `key: value` entry: its key line plus continuation lines. Offsets into the YAML. */
export interface YamlEntry {
  key: string;
  /** The key as written, up to and including its colon (`"my key":`). */
  keyText: string;
  start: number;
  end: number;
}

export function setFrontmatter(text: string, key: string, value: unknown): string {
  validateKey(key);
  const normalized = normalizeValue(value);
  const eol = noteEol(text);
  const fm = splitFrontmatter(text);
  if (fm === null) {
    const block = ["---", ...entryLines(`${emitKey(key)}:`, normalized), "---"].join(eol) + eol;
    const out = block + text;
    verify(out, key, normalized, {});
    return out;
  }
  const before = parsed(fm);
  const entry = findEntry(fm, key, before);
  let yaml: string;
  if (entry !== null) {
    const lines = entryLines(entry.keyText, normalized).join(eol) + eol;
    // An entry always ends with a line break (the closing `---` follows it), so its replacement does too.
    yaml = fm.yaml.slice(0, entry.start) + lines + fm.yaml.slice(entry.end);
  } else {
    yaml = fm.yaml + entryLines(`${emitKey(key)}:`, normalized).join(eol) + eol;
  }
  const out = text.slice(0, fm.yamlOffset) + yaml + text.slice(fm.yamlOffset + fm.yaml.length);
  verify(out, key, normalized, before);
  return out;
}

export function deleteFrontmatter(text: string, key: string): string {
  validateKey(key);
  const fm = splitFrontmatter(text);
  if (fm === null) throw missingKey(key);
  const before = parsed(fm);
  const entry = findEntry(fm, key, before);
  if (entry === null) throw missingKey(key);
  const yaml = fm.yaml.slice(0, entry.start) + fm.yaml.slice(entry.end);
  const out = text.slice(0, fm.yamlOffset) + yaml + text.slice(fm.yamlOffset + fm.yaml.length);
  verify(out, key, undefined, before);
  return out;
}

function validateKey(key: unknown): asserts key is string {
  if (typeof key !== "string" || key === "" || /[\r\n]/.test(key)) {
    throw new IndxError("validation_failed", "A frontmatter key must be a non-empty string on one line.", { field: "key" });
  }
}

function missingKey(key: string): IndxError {
  return new IndxError("patch_target_not_found", "The note has no frontmatter property with that key.", { key });
}

function parsed(fm: FrontmatterBlock): Record<string, unknown> {
  const r = parseFrontmatterYaml(fm.yaml, fm.yamlLine);
  if (r.data === null) {
    throw new IndxError("parse_failed", `Cannot edit properties: ${r.error ?? "frontmatter is not valid YAML"}.`);
  }
  return r.data;
}

/** The entry for `key`, or null when the key is absent. */
function findEntry(fm: FrontmatterBlock, key: string, data: Record<string, unknown>): YamlEntry | null {
  const entry = topLevelEntries(fm.yaml).find((e) => e.key === key) ?? null;
  if (entry === null && Object.hasOwn(data, key)) throw unsafe();
  return entry;
}

function unsafe(): IndxError {
  return new IndxError("parse_failed", "This frontmatter's layout cannot be edited line by line safely (e.g. JSON or multi-line flow style).");
}

/** Checks the written block reads back as intended: `key` → `expected` (absent when undefined), the rest as before. */
function verify(out: string, key: string, expected: YamlValue | undefined, before: Record<string, unknown>): void {
  const fm = splitFrontmatter(out);
  const after = fm === null ? null : parseFrontmatterYaml(fm.yaml, fm.yamlLine).data;
  if (after === null) throw unsafe();
  const keysBefore = Object.keys(before)
    .filter((k) => k !== key)
    .sort();
  const keysAfter = Object.keys(after)
    .filter((k) => k !== key)
    .sort();
  const ok =
    Bun.deepEquals(keysBefore, keysAfter) &&
    keysBefore.every((k) => Bun.deepEquals(before[k], after[k])) &&
    (expected === undefined ? !Object.hasOwn(after, key) : Object.hasOwn(after, key) && Bun.deepEquals(after[key], expected));
  if (!ok) throw unsafe();
}

/**
 * Top-level entries of a YAML mapping, found line by line. An entry is its key line plus the lines
 * that continue it: indented lines (comments included), `- item` lines at column 0 when the key
 * line has no inline value (YAML allows a block sequence at the key's own indent), and blank
 * lines that sit between such lines. Trailing blank lines and column-0 comments are not part of
 * an entry.
 */
export function topLevelEntries(yaml: string): YamlEntry[] {
  const lines = splitLines(yaml);
  const out: YamlEntry[] = [];
  let i = 0;
  for (let line = lines[i]; line !== undefined; line = lines[i]) {
    const head = parseKeyLine(line.content);
    if (head === null) {
      i++;
      continue;
    }
    const start = line.start;
    let end = line.next;
    let j = i + 1;
    for (let next = lines[j]; next !== undefined; next = lines[++j]) {
      const c = next.content;
      if (c.trim() === "") continue; // blank: part of the entry only if a continuation follows
      const first = c.charCodeAt(0);
      const continues = first === 32 || first === 9 || (head.emptyValue && /^-(?:[ \t]|$)/.test(c));
      if (!continues) break;
      end = next.next;
    }
    out.push({ key: head.key, keyText: head.keyText, start, end });
    i = j;
  }
  return out;
}

interface Line {
  start: number;
  /** The line without its line break. */
  content: string;
  /** Offset just past the line break. */
  next: number;
}

function splitLines(text: string): Line[] {
  const out: Line[] = [];
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf("\n", start);
    const next = nl < 0 ? text.length : nl + 1;
    let end = nl < 0 ? text.length : nl;
    if (end > start && text.charCodeAt(end - 1) === 13) end--;
    out.push({ start, content: text.slice(start, end), next });
    start = next;
  }
  return out;
}

interface KeyLine {
  key: string;
  keyText: string;
  /** Nothing but an optional comment after the colon: the value, if any, is on the next lines. */
  emptyValue: boolean;
}

const DOUBLE_QUOTED_KEY = /^"((?:[^"\\]|\\.)*)"[ \t]*:(?=[ \t]|$)/;
const SINGLE_QUOTED_KEY = /^'((?:[^']|'')*)'[ \t]*:(?=[ \t]|$)/;

/** `key: …` at column 0 (plain, "double" or 'single' quoted key), or null for anything else. */
function parseKeyLine(line: string): KeyLine | null {
  const c = line.charCodeAt(0);
  if (line === "" || c === 32 || c === 9 || c === 35 /* # */ || line.startsWith("---") || line.startsWith("...")) return null;
  let key: string;
  let keyText: string;
  const dq = DOUBLE_QUOTED_KEY.exec(line);
  const sq = dq === null ? SINGLE_QUOTED_KEY.exec(line) : null;
  if (dq !== null) {
    try {
      key = JSON.parse(`"${dq[1]}"`) as string;
    } catch {
      return null; // a YAML-only escape: leave the line alone (verification catches a miss)
    }
    keyText = dq[0];
  } else if (sq !== null) {
    key = (sq[1] ?? "").replace(/''/g, "'");
    keyText = sq[0];
  } else {
    if (/^[-?:,[\]{}&*!|>'"%@`]/.test(line) && !/^[-?:][^ \t]/.test(line)) return null;
    const colon = line.search(/:(?=[ \t]|$)/);
    if (colon <= 0) return null;
    key = line.slice(0, colon).trimEnd();
    if (key.includes(" #")) return null;
    keyText = line.slice(0, colon + 1);
  }
  const rest = line.slice(keyText.length).trim();
  return { key, keyText, emptyValue: rest === "" || rest.startsWith("#") };
}
