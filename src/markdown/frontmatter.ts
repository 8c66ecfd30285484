/**
 * Frontmatter (docs/obsidian.md, Frontmatter): detection, YAML parsing, and the values Obsidian
 * derives from it (aliases, tags, frontmatter links).
 */
import { parse } from "yaml";
import { lineAt } from "./chars.ts";
import { linksInString } from "./links.ts";
import type { LinkRef } from "./types.ts";
import { parseSimpleYaml } from "./yaml-simple.ts";

export interface FrontmatterBlock {
  /** The raw YAML between the delimiter lines (line endings as written). */
  yaml: string;
  /** Index of the first YAML character in the text. */
  yamlOffset: number;
  /** 1-based line of the first YAML line (always 2). */
  yamlLine: number;
  /** Index where the body starts: after the closing `---` line and its line break. */
  bodyOffset: number;
  /** 1-based line where the body starts. */
  bodyLine: number;
}

/**
 * Finds the frontmatter block: the text must start at index 0 with `---` + LF/CRLF (a BOM or
 * leading whitespace means none), and a later line must be `---` (trailing spaces/tabs tolerated)
 * followed by a line break or EOF. Returns null when there is no (closed) block.
 */
export function splitFrontmatter(text: string): FrontmatterBlock | null {
  let yamlOffset: number;
  if (text.startsWith("---\n")) yamlOffset = 4;
  else if (text.startsWith("---\r\n")) yamlOffset = 5;
  else return null;
  let lineStart = yamlOffset;
  let line = 2;
  while (lineStart <= text.length) {
    const nl = text.indexOf("\n", lineStart);
    const lineEnd = nl < 0 ? text.length : nl;
    if (text.startsWith("---", lineStart) && isClosingRest(text, lineStart + 3, lineEnd)) {
      return {
        yaml: text.slice(yamlOffset, lineStart),
        yamlOffset,
        yamlLine: 2,
        bodyOffset: nl < 0 ? text.length : nl + 1,
        bodyLine: line + 1,
      };
    }
    if (nl < 0) break;
    lineStart = nl + 1;
    line++;
  }
  return null;
}

function isClosingRest(text: string, from: number, lineEnd: number): boolean {
  for (let i = from; i < lineEnd; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9) continue;
    if (c === 13 && i === lineEnd - 1) continue;
    return false;
  }
  return true;
}

/** How deeply frontmatter may nest (the top-level mapping is level 1); deeper is invalid. */
export const FRONTMATTER_MAX_DEPTH = 64;

export interface FrontmatterData {
  data: Record<string, unknown> | null;
  error: string | null;
  /** Set when the YAML parsed but has no plain-data form: writes refuse such frontmatter. */
  unusable?: "alias_loop" | "too_deep";
}

/**
 * YAML 1.2 core schema (eemeli/yaml defaults, dates stay strings). The result must be a mapping;
 * an empty block is `{}`. Errors never quote note text, only a line number of the file.
 * Common simple blocks take a fast path (yaml-simple.ts) with identical results.
 */
export function parseFrontmatterYaml(yaml: string, yamlLine = 2): FrontmatterData {
  const simple = parseSimpleYaml(yaml);
  if (simple !== undefined) return { data: simple, error: null };
  let value: unknown;
  try {
    value = parse(yaml, { logLevel: "error" });
  } catch (e) {
    const pos = (e as { linePos?: { line: number }[] }).linePos?.[0]?.line;
    const where = typeof pos === "number" ? ` (line ${yamlLine + pos - 1})` : "";
    return { data: null, error: `frontmatter is not valid YAML${where}` };
  }
  if (value === null || value === undefined) return { data: {}, error: null };
  if (typeof value !== "object" || Array.isArray(value) || value instanceof Map || value instanceof Set) {
    return { data: null, error: "frontmatter is not a YAML mapping" };
  }
  const problem = shapeProblem(value, 1, new Set());
  if (problem === "alias_loop") return { data: null, error: "frontmatter refers to itself (a YAML alias loop)", unusable: problem };
  if (problem === "too_deep") return { data: null, error: `frontmatter is nested deeper than ${FRONTMATTER_MAX_DEPTH} levels`, unusable: problem };
  return { data: value as Record<string, unknown>, error: null };
}

/**
 * An alias that refers to its own ancestor (`a: &a [*a]`) makes the parsed value cyclic, and very
 * deep nesting breaks SQLite's JSON functions (their limit is 1,000 levels): both would break
 * every consumer that serialises the value, so such frontmatter counts as invalid. Alias expansion
 * itself is bounded by the parser (maxAliasCount), so this walk is too.
 */
function shapeProblem(value: object, depth: number, ancestors: Set<object>): "alias_loop" | "too_deep" | null {
  if (depth > FRONTMATTER_MAX_DEPTH) return "too_deep";
  ancestors.add(value);
  for (const child of Object.values(value)) {
    if (typeof child !== "object" || child === null) continue;
    if (ancestors.has(child)) return "alias_loop";
    const problem = shapeProblem(child, depth + 1, ancestors);
    if (problem) return problem;
  }
  ancestors.delete(value);
  return null;
}

function firstKey(data: Record<string, unknown>, re: RegExp): string | undefined {
  for (const k of Object.keys(data)) if (re.test(k)) return k;
  return undefined;
}

/** `aliases` (any case): a string or a list; items trimmed, non-strings and empties dropped. */
export function frontmatterAliases(data: Record<string, unknown> | null): string[] {
  if (!data) return [];
  const key = firstKey(data, /^aliases$/i);
  if (key === undefined) return [];
  const v = data[key];
  const items = Array.isArray(v) ? v : [v];
  const out: string[] = [];
  for (const item of items) {
    if (typeof item !== "string") continue;
    const t = item.trim();
    if (t !== "") out.push(t);
  }
  return out;
}

const ALL_DIGITS = /^\d+$/;

/** Normalises one frontmatter tag value, or null when Obsidian drops it. */
function frontmatterTag(item: unknown): string | null {
  if (typeof item !== "string") return null;
  let t = item.trim();
  if (t === "" || /\s/.test(t)) return null;
  if (t.startsWith("#")) t = t.slice(1);
  if (t === "" || ALL_DIGITS.test(t)) return null;
  return t;
}

/**
 * Tags from the first key matching /^tags$/i: a list of strings or one space-free string.
 * Non-strings and items with spaces are dropped, a leading `#` is stripped, all-digit tags dropped.
 */
export function frontmatterTags(data: Record<string, unknown> | null): string[] {
  if (!data) return [];
  const key = firstKey(data, /^tags$/i);
  if (key === undefined) return [];
  const v = data[key];
  const out: string[] = [];
  for (const item of Array.isArray(v) ? v : [v]) {
    const t = frontmatterTag(item);
    if (t !== null) out.push(t);
  }
  return out;
}

/** Index in the YAML of the line that declares top-level `key` (best effort; 0 when not found). */
export function keyIndexInYaml(yaml: string, key: string): number {
  const forms = [key, `"${key}"`, `'${key}'`];
  let i = 0;
  while (i < yaml.length) {
    for (const f of forms) {
      if (!yaml.startsWith(f, i)) continue;
      let j = i + f.length;
      while (yaml.charCodeAt(j) === 32) j++;
      if (yaml.charCodeAt(j) === 58 /* : */) return i;
    }
    const nl = yaml.indexOf("\n", i);
    if (nl < 0) break;
    i = nl + 1;
  }
  return 0;
}

/**
 * Links in frontmatter values (top-level string values and string list items) — wikilinks and
 * internal Markdown links. `key` is `prop` or `prop.N`; offsets point at the raw link in the YAML
 * when it can be found there (quoted/escaped values may fall back to the key's line).
 */
export function frontmatterLinks(data: Record<string, unknown> | null, block: FrontmatterBlock, text: string): LinkRef[] {
  if (!data) return [];
  const out: LinkRef[] = [];
  let cursor = 0;
  const add = (key: string, prop: string, v: unknown) => {
    if (typeof v !== "string" || v.indexOf("[") < 0) return;
    for (const l of linksInString(v)) {
      let at = block.yaml.indexOf(l.raw, cursor);
      if (at < 0) at = block.yaml.indexOf(l.raw);
      if (at >= 0) cursor = at + l.raw.length;
      const offset = block.yamlOffset + (at >= 0 ? at : keyIndexInYaml(block.yaml, key));
      out.push({
        embed: l.embed,
        syntax: "frontmatter",
        linkpath: l.linkpath,
        subpath: l.subpath,
        display: l.display,
        raw: l.raw,
        line: lineAt(text, block.yamlOffset, block.yamlLine, offset),
        offset,
        key: prop,
        rel: key,
      });
    }
  };
  for (const key in data) {
    const value = data[key];
    if (Array.isArray(value)) for (let n = 0; n < value.length; n++) add(key, `${key}.${n}`, value[n]);
    else add(key, key, value);
  }
  return out;
}

/** Frontmatter tags with the (best-effort) YAML line each one is written on. */
export function frontmatterTagLines(data: Record<string, unknown> | null, block: FrontmatterBlock, text: string): { tag: string; line: number }[] {
  const tags = frontmatterTags(data);
  if (tags.length === 0 || !data) return [];
  const key = firstKey(data, /^tags$/i);
  if (key === undefined) return [];
  let cursor = keyIndexInYaml(block.yaml, key);
  return tags.map((tag) => {
    const at = block.yaml.indexOf(tag, cursor);
    const idx = at < 0 ? cursor : at;
    if (at >= 0) cursor = at + tag.length;
    return { tag, line: lineAt(text, block.yamlOffset, block.yamlLine, block.yamlOffset + idx) };
  });
}
