/**
 * Typed result values: every cell carries its type, so a client never guesses whether "2025-01-02"
 * is text or a date. Links are {path, display}; lists and objects hold cells.
 */
import { isoText } from "./dates.ts";
import { DateValue, DurationValue, FileValue, isList, LinkValue, MarkupValue, ObjectValue, typeOf, type Value } from "./values.ts";

export interface Cell {
  type: string;
  value: unknown;
}

export function toCell(v: Value): Cell {
  if (v === null) return { type: "null", value: null };
  if (typeof v === "number") return Number.isFinite(v) ? { type: "number", value: v } : { type: "error", value: "not a finite number" };
  if (typeof v === "string" || typeof v === "boolean") return { type: typeOf(v), value: v };
  if (isList(v)) return { type: "list", value: v.map(toCell) };
  if (v instanceof DateValue) return { type: v.hasTime ? "datetime" : "date", value: isoText(v) };
  if (v instanceof DurationValue) return { type: "duration", value: v.totalMs };
  if (v instanceof LinkValue)
    return { type: "link", value: { path: v.target ?? v.linkpath, display: v.display ?? displayOf(v.target ?? v.linkpath), resolved: v.target !== null } };
  if (v instanceof FileValue) return { type: "file", value: { path: v.entry.path, display: displayOf(v.entry.path) } };
  if (v instanceof ObjectValue) return { type: "object", value: Object.fromEntries(Object.entries(v.fields).map(([k, f]) => [k, toCell(f)])) };
  if (v instanceof RegExp) return { type: "regexp", value: String(v) };
  if (v instanceof MarkupValue) return { type: v.kind, value: v.text };
  return { type: "error", value: v.message };
}

/** A link's shown text without an alias: the file's base name, as Obsidian shows it. */
function displayOf(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return name.replace(/\.md$/i, "");
}

/** A cell as one line of text, for tables, CSV and Markdown. */
export function cellText(c: Cell): string {
  switch (c.type) {
    case "null":
      return "";
    case "list":
      return (c.value as Cell[]).map(cellText).join(", ");
    case "link":
    case "file":
      return (c.value as { display: string }).display;
    case "object":
      return JSON.stringify(Object.fromEntries(Object.entries(c.value as Record<string, Cell>).map(([k, f]) => [k, cellText(f)])));
    case "error":
      return `Error: ${String(c.value)}`;
    default:
      return String(c.value);
  }
}
