/**
 * Typed note properties (docs/decisions.md, "Typed properties"). A base reads each frontmatter
 * value from the note's frontmatter JSON with the type Obsidian would infer for it; the vault's
 * declared types (.obsidian/types.json) are applied then, so editing types.json needs no reindex.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseDate, parseDateText } from "./dates.ts";
import { DateValue, LinkValue, ObjectValue, type Value } from "./values.ts";

/** The property types of Obsidian's types.json, plus what the index infers for nested values. */
export type PropertyType = "text" | "multitext" | "number" | "checkbox" | "date" | "datetime" | "tags" | "aliases" | "object";

const DECLARABLE = new Set<string>(["text", "multitext", "number", "checkbox", "date", "datetime", "tags", "aliases"]);

/** Keys whose type Obsidian forces, whatever types.json says. */
const FORCED: Record<string, PropertyType> = { tags: "tags", aliases: "aliases", cssclasses: "multitext" };

const DATE_ONLY = /^\d{4}-[01]\d-[0-3]\d$/;
const DATE_TIME = /^\d{4}-[01]\d-[0-3]\dT\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/** The type Obsidian infers for a frontmatter value when types.json declares none. */
export function inferPropertyType(value: unknown): PropertyType {
  if (typeof value === "number") return "number";
  if (typeof value === "boolean") return "checkbox";
  if (Array.isArray(value)) return "multitext";
  if (typeof value === "string") return DATE_ONLY.test(value) ? "date" : DATE_TIME.test(value) ? "datetime" : "text";
  if (value !== null && typeof value === "object") return "object";
  return "text";
}

const WIKILINK = /^\[\[([^\]|#]*)(#[^\]|]*)?(?:\|([^\]]*))?\]\]$/;

/**
 * A property as the index stores it: the columns base filters prefilter on. The value itself is
 * read from the note's frontmatter JSON, and its type inferred again from it.
 */
export interface PropertyRow {
  keyLower: string;
  /** The key as written, or null when it is its own lowercase. */
  key: string | null;
  num: number | null;
  /** A string that is not a wikilink: a wikilink reads as a link whatever the property's type. */
  text: string | null;
  /** The day a date string is written for (YYYY-MM-DD), whatever its time and zone. */
  day: string | null;
  /** The link path of a wikilink. */
  link: string | null;
  /** A boolean as 1 or 0. */
  bool: number | null;
}

export function propertyRow(key: string, value: unknown): PropertyRow {
  const link = typeof value === "string" ? (WIKILINK.exec(value.trim())?.[1] ?? null) : null;
  const text = typeof value === "string" && link === null ? value : null;
  const keyLower = key.toLowerCase();
  return {
    keyLower,
    key: key === keyLower ? null : key,
    num: typeof value === "number" && Number.isFinite(value) ? value : null,
    text,
    day: text !== null && parseDateText(text) ? text.trim().slice(0, 10) : null,
    link,
    bool: typeof value === "boolean" ? Number(value) : null,
  };
}

/** Declared types by lowercased property name (types are per name and case-insensitive). */
export type DeclaredTypes = ReadonlyMap<string, PropertyType>;

/** Reads .obsidian/types.json; a missing or malformed file declares nothing. */
export function readDeclaredTypes(vaultRoot: string): { types: DeclaredTypes; text: string } {
  const types = new Map<string, PropertyType>();
  let text = "";
  try {
    text = readFileSync(join(vaultRoot, ".obsidian", "types.json"), "utf8");
    const parsed: unknown = JSON.parse(text);
    const declared = parsed && typeof parsed === "object" && "types" in parsed ? parsed.types : null;
    if (declared && typeof declared === "object")
      for (const [name, type] of Object.entries(declared))
        if (typeof type === "string" && DECLARABLE.has(type)) types.set(name.toLowerCase(), type as PropertyType);
  } catch {}
  return { types, text };
}

export function effectiveType(key: string, inferred: PropertyType, declared: DeclaredTypes): PropertyType {
  return declaredType(key, declared) ?? inferred;
}

/** The type Obsidian gives every value of a property, or null when each value's own type counts. */
export function declaredType(key: string, declared: DeclaredTypes): PropertyType | null {
  const lower = key.toLowerCase();
  return (Object.hasOwn(FORCED, lower) ? FORCED[lower] : undefined) ?? declared.get(lower) ?? null;
}

/** Resolves a link written in `from`'s frontmatter. */
export type ResolveLink = (linkpath: string) => string | null;

/** A frontmatter value → a Bases value of the given type; what does not fit the type stays as written. */
export function typedValue(raw: unknown, type: PropertyType, resolve: ResolveLink): Value {
  if (raw === null || raw === undefined) return null;
  switch (type) {
    case "date":
    case "datetime": {
      const d = typeof raw === "string" ? parseDate(raw) : null;
      if (d) return type === "date" && !d.hasTime ? d : new DateValue(d.ms, d.hasTime || type === "datetime");
      return plainValue(raw, resolve);
    }
    case "number":
      if (typeof raw === "string" && raw.trim() !== "" && Number.isFinite(Number(raw))) return Number(raw);
      return plainValue(raw, resolve);
    case "checkbox":
      if (raw === "true" || raw === "false") return raw === "true";
      return plainValue(raw, resolve);
    case "multitext":
    case "tags":
    case "aliases":
      return Array.isArray(raw) ? raw.map((item) => plainValue(item, resolve)) : [plainValue(raw, resolve)];
    default:
      return plainValue(raw, resolve);
  }
}

/** A value as YAML gave it: a whole-string wikilink is a Link, a date-shaped string stays text. */
function plainValue(raw: unknown, resolve: ResolveLink): Value {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === "string") {
    const m = WIKILINK.exec(raw.trim());
    const linkpath = m?.[1];
    return m && linkpath !== undefined ? new LinkValue(linkpath, resolve(linkpath), m[3] ?? null) : raw;
  }
  if (typeof raw === "number" || typeof raw === "boolean") return raw;
  if (Array.isArray(raw)) return raw.map((item) => plainValue(item, resolve));
  if (typeof raw === "object") return new ObjectValue(Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, plainValue(v, resolve)])));
  return null;
}
