/**
 * The values of the Bases expression language. Strings, numbers, booleans, null and lists are
 * plain JavaScript values; everything with behaviour of its own is a small class. Obsidian's
 * semantics for nulls and type mismatches are summarised in docs/decisions.md ("Bases values").
 */
import type { Entry } from "./entry.ts";

export type Value =
  | null
  | string
  | number
  | boolean
  | readonly Value[]
  | DateValue
  | DurationValue
  | LinkValue
  | FileValue
  | ObjectValue
  | RegExp
  | MarkupValue
  | ErrorValue;

/** A point in time. `hasTime` false is a calendar date (local midnight): it prints and compares as a day. */
export class DateValue {
  constructor(
    readonly ms: number,
    readonly hasTime: boolean,
  ) {}
}

/**
 * A length of time. Months and days are calendar units (a month is not a fixed number of ms, and
 * a day across a daylight-saving change is 23 or 25 hours); `ms` is exact time.
 */
export class DurationValue {
  constructor(
    readonly months: number,
    readonly days: number,
    readonly ms: number,
  ) {}

  /** Milliseconds, for numeric contexts: a month counts 30 days there. */
  get totalMs(): number {
    return (this.months * 30 + this.days) * 86_400_000 + this.ms;
  }
}

/** A link to a vault file: `target` is the resolved path, null when nothing matches `linkpath`. */
export class LinkValue {
  constructor(
    readonly linkpath: string,
    readonly target: string | null,
    readonly display: string | null,
  ) {}
}

/** A vault file (file, this, link.asFile()). */
export class FileValue {
  constructor(readonly entry: Entry) {}
}

/** `this`: the file the base is seen from, with its properties (this.file, this.note.x, this.x). */
export class ThisValue extends FileValue {}

export class ObjectValue {
  constructor(readonly fields: Readonly<Record<string, Value>>) {}
}

/** html(), image() and icon(): text that a renderer shows in a special way. */
export class MarkupValue {
  constructor(
    readonly kind: "html" | "image" | "icon",
    readonly text: string,
  ) {}
}

/** What a failed operation evaluates to ("text" * 2): falsy, and it propagates. */
export class ErrorValue {
  constructor(readonly message: string) {}
}

export type TypeName =
  | "null"
  | "string"
  | "number"
  | "boolean"
  | "list"
  | "date"
  | "duration"
  | "link"
  | "file"
  | "object"
  | "regexp"
  | "html"
  | "image"
  | "icon"
  | "error";

export function typeOf(v: Value): TypeName {
  if (v === null) return "null";
  switch (typeof v) {
    case "string":
      return "string";
    case "number":
      return "number";
    case "boolean":
      return "boolean";
  }
  if (Array.isArray(v)) return "list";
  if (v instanceof DateValue) return "date";
  if (v instanceof DurationValue) return "duration";
  if (v instanceof LinkValue) return "link";
  if (v instanceof FileValue) return "file";
  if (v instanceof ObjectValue) return "object";
  if (v instanceof RegExp) return "regexp";
  if (v instanceof MarkupValue) return v.kind;
  return "error";
}

export const isList = (v: Value): v is readonly Value[] => Array.isArray(v);

export function isTruthy(v: Value): boolean {
  if (v === null) return false;
  if (typeof v === "string") return v.length > 0;
  if (typeof v === "number") return v !== 0 && !Number.isNaN(v);
  if (typeof v === "boolean") return v;
  if (isList(v)) return v.length > 0;
  if (v instanceof ObjectValue) return Object.keys(v.fields).length > 0;
  if (v instanceof DurationValue) return v.totalMs !== 0;
  if (v instanceof ErrorValue) return false;
  return true;
}

/** Empty is null, "", [], {}; a number, date or boolean is never empty. */
export function isEmpty(v: Value): boolean {
  if (v === null) return true;
  if (typeof v === "string") return v.length === 0;
  if (isList(v)) return v.length === 0;
  if (v instanceof ObjectValue) return Object.keys(v.fields).length === 0;
  return false;
}

export const error = (message: string) => new ErrorValue(message);
