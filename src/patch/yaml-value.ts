/**
 * Writing property values the way Obsidian writes them (docs/obsidian.md, Frontmatter): plain
 * scalars when YAML reads them back as the same string, double quotes otherwise; numbers and
 * booleans plain; null as an empty value; lists as block sequences indented two spaces under the
 * key; nested objects as indented block mappings.
 */
import { parse } from "yaml";
import { IndxError } from "../core/errors.ts";
import { FRONTMATTER_MAX_DEPTH } from "../markdown/frontmatter.ts";

/** A value that can be written as YAML and read back unchanged. */
export type YamlValue = null | boolean | number | string | YamlValue[] | { [key: string]: YamlValue };

/**
 * Checks and normalises a caller's value: JSON-like data only (Dates become ISO strings, since
 * Obsidian keeps dates as strings), nested no deeper than the frontmatter parser accepts (a
 * property value sits at level 2, under the top-level mapping). Anything else is validation_failed.
 */
export function normalizeValue(value: unknown, path = "value", depth = 2): YamlValue {
  if (value === null || typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number") return value;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw invalid(path, "is an invalid date");
    return value.toISOString();
  }
  const isList = Array.isArray(value);
  if ((isList || (typeof value === "object" && isPlainObject(value))) && depth > FRONTMATTER_MAX_DEPTH)
    throw invalid(path, `is nested deeper than ${FRONTMATTER_MAX_DEPTH} levels`, "frontmatter_too_deep");
  if (isList) return value.map((v, i) => normalizeValue(v, `${path}[${i}]`, depth + 1));
  if (typeof value === "object" && isPlainObject(value)) {
    const out: { [key: string]: YamlValue } = {};
    for (const [k, v] of Object.entries(value)) out[k] = normalizeValue(v, `${path}.${k}`, depth + 1);
    return out;
  }
  throw invalid(path, value === undefined ? "is missing (use null for an empty property)" : "is not JSON data");
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function invalid(path: string, what: string, reason?: string): IndxError {
  return new IndxError("validation_failed", `Property ${path} ${what}.`, reason ? { field: path, reason } : { field: path });
}

/** The lines of a `key: value` entry at the top level of a mapping (no line endings). */
export function entryLines(keyText: string, value: YamlValue): string[] {
  const v = emit(value);
  if (typeof v === "string") return [v === "" ? keyText : `${keyText} ${v}`];
  return [keyText, ...v.map((l) => `  ${l}`)];
}

/** A scalar or empty collection as inline text, or a block collection as lines (unindented). */
function emit(value: YamlValue): string | string[] {
  if (value === null) return "";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return emitNumber(value);
  if (typeof value === "string") return emitString(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const lines: string[] = [];
    for (const item of value) {
      const v = emit(item);
      if (typeof v === "string") lines.push(v === "" ? "-" : `- ${v}`);
      else for (const [i, l] of v.entries()) lines.push(i === 0 ? `- ${l}` : `  ${l}`);
    }
    return lines;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return "{}";
  const lines: string[] = [];
  for (const [k, v] of entries) lines.push(...entryLines(`${emitKey(k)}:`, v));
  return lines;
}

function emitNumber(n: number): string {
  if (Number.isNaN(n)) return ".nan";
  if (n === Infinity) return ".inf";
  if (n === -Infinity) return "-.inf";
  return Object.is(n, -0) ? "-0" : String(n);
}

/** Words that YAML 1.1 readers (and some tools) read as booleans or null: always quoted. */
const RESERVED_WORD = /^(?:~|null|true|false|yes|no|on|off|y|n)$/i;
/** Anything a YAML reader could take for a number (decimal, hex, octal, exponent, inf/nan). */
const NUMBER_LIKE = /^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$|^[-+]?0[xXoObB][0-9a-fA-F_]+$|^[-+]?\.(?:inf|nan)$/i;
/** Characters that have a meaning when they start a plain scalar. */
const INDICATOR_START = /^[-?:,[\]{}#&*!|>'"%@`]/;
/** Characters YAML does not allow raw in a scalar or that would end a line. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these control characters are what the pattern finds
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/;

/** Plain when unambiguous and read back unchanged; otherwise double-quoted. */
export function emitString(s: string): string {
  return isPlainSafe(s) && readsBackAs(`k: ${s}`, "k", s) ? s : doubleQuoted(s);
}

/** A mapping key: plain when safe, else double-quoted. */
export function emitKey(k: string): string {
  return isPlainSafe(k) && readsBackAs(`${k}: 0`, k, 0) ? k : doubleQuoted(k);
}

function isPlainSafe(s: string): boolean {
  return (
    s !== "" &&
    s.trim() === s &&
    !UNPRINTABLE.test(s) &&
    !INDICATOR_START.test(s) &&
    !RESERVED_WORD.test(s) &&
    !NUMBER_LIKE.test(s) &&
    !s.includes(": ") &&
    !s.includes(" #") &&
    !s.endsWith(":")
  );
}

function readsBackAs(yaml: string, key: string, expected: unknown): boolean {
  try {
    const data: unknown = parse(yaml, { logLevel: "silent" });
    return typeof data === "object" && data !== null && Object.keys(data).length === 1 && Object.is((data as Record<string, unknown>)[key], expected);
  } catch {
    return false;
  }
}

/** YAML double-quoted scalar: JSON escapes plus the characters YAML wants escaped. */
function doubleQuoted(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
