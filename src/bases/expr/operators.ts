/**
 * Operators of the Bases language. A missing value (null) in arithmetic gives null, so an empty
 * property never turns a whole formula into an error; a real type mismatch ("text" * 2) gives an
 * error value (docs/decisions.md, "Bases values").
 */
import { addDuration, isoText, parseDate, parseDuration, startOfDay } from "../dates.ts";
import { DateValue, DurationValue, ErrorValue, error, FileValue, isList, LinkValue, MarkupValue, ObjectValue, typeOf, type Value } from "../values.ts";
import type { BinaryOp } from "./parser.ts";

/** The text of a value, as toString() and string concatenation show it. */
export function toText(v: Value): string {
  if (v === null) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (isList(v)) return v.map(toText).join(", ");
  if (v instanceof DateValue) return isoText(v);
  if (v instanceof DurationValue) return durationText(v);
  if (v instanceof LinkValue) return v.display ?? v.linkpath;
  if (v instanceof FileValue) return v.entry.path;
  if (v instanceof ObjectValue) return JSON.stringify(Object.fromEntries(Object.entries(v.fields).map(([k, f]) => [k, toText(f)])));
  if (v instanceof RegExp) return String(v);
  if (v instanceof MarkupValue) return v.text;
  return `Error: ${v.message}`;
}

function durationText(d: DurationValue): string {
  const parts: string[] = [];
  if (d.months) parts.push(`${d.months}M`);
  if (d.days) parts.push(`${d.days}d`);
  if (d.ms || parts.length === 0) parts.push(`${d.ms}ms`);
  return parts.join(" ");
}

/** The path a link or file points at, for equality between them; null for an unresolved link. */
function targetOf(v: LinkValue | FileValue): string | null {
  return v instanceof FileValue ? v.entry.path : v.target;
}

/** Equality (== and contains): links equal the file they resolve to; a date equals a date-time on the same day. */
export function valuesEqual(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if ((a instanceof LinkValue || a instanceof FileValue) && (b instanceof LinkValue || b instanceof FileValue)) {
    const ta = targetOf(a);
    const tb = targetOf(b);
    if (ta !== null || tb !== null) return ta === tb;
    return a instanceof LinkValue && b instanceof LinkValue && a.linkpath === b.linkpath;
  }
  if (a instanceof LinkValue && typeof b === "string") return linkEqualsText(a, b);
  if (b instanceof LinkValue && typeof a === "string") return linkEqualsText(b, a);
  const da = asDate(a);
  const db = asDate(b);
  if (da && db && (a instanceof DateValue || b instanceof DateValue)) {
    return dayOrInstant(da, db) === 0;
  }
  if (a instanceof DurationValue && b instanceof DurationValue) return a.totalMs === b.totalMs;
  if (isList(a) && isList(b))
    return (
      a.length === b.length &&
      a.every((x, i) => {
        const y = b[i];
        return y !== undefined && valuesEqual(x, y);
      })
    );
  if (a instanceof ObjectValue && b instanceof ObjectValue) {
    const ka = Object.keys(a.fields);
    return (
      ka.length === Object.keys(b.fields).length &&
      ka.every((k) => {
        const x = a.fields[k];
        const y = b.fields[k];
        return k in b.fields && x !== undefined && y !== undefined && valuesEqual(x, y);
      })
    );
  }
  if (a instanceof RegExp && b instanceof RegExp) return String(a) === String(b);
  if (a instanceof MarkupValue && b instanceof MarkupValue) return a.kind === b.kind && a.text === b.text;
  return false;
}

/** A link compared with text: the same target text, or the path of what it resolves to (with or without .md). */
function linkEqualsText(link: LinkValue, text: string): boolean {
  const inner = /^\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]$/.exec(text)?.[1] ?? text;
  if (inner === link.linkpath) return true;
  return link.target !== null && (inner === link.target || `${inner}.md` === link.target);
}

/** Date-times compare as instants; when either is a plain date, as days (a date holds its midnight already). */
function dayOrInstant(a: DateValue, b: DateValue): number {
  if (a.hasTime === b.hasTime) return a.ms - b.ms;
  return (a.hasTime ? startOfDay(a.ms) : a.ms) - (b.hasTime ? startOfDay(b.ms) : b.ms);
}

const asDate = (v: Value): DateValue | null => (v instanceof DateValue ? v : typeof v === "string" ? parseDate(v) : null);

/** Ordering for < <= > >=: numbers, texts, dates (with date strings), durations; null when incomparable. */
export function compareValues(a: Value, b: Value): number | null {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (a instanceof DateValue || b instanceof DateValue) {
    const da = asDate(a);
    const db = asDate(b);
    if (!da || !db) return null;
    return dayOrInstant(da, db);
  }
  const na = a instanceof DurationValue ? a.totalMs : a;
  const nb = b instanceof DurationValue ? b.totalMs : b;
  if (typeof na === "number" && typeof nb === "number") return na - nb;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  return null;
}

const finite = (n: number): Value => (Number.isFinite(n) ? n : error("The result is not a finite number"));

const mismatch = (op: string, a: Value, b: Value) => error(`Cannot apply '${op}' to ${typeOf(a)} and ${typeOf(b)}`);

/** The duration a value stands for on the right of a date: a duration, or a duration string. */
const asDuration = (v: Value): DurationValue | null => (v instanceof DurationValue ? v : typeof v === "string" ? parseDuration(v) : null);

function add(a: Value, b: Value): Value {
  if (typeof a === "number" && typeof b === "number") return finite(a + b);
  if (a instanceof DateValue) {
    const d = asDuration(b);
    return d ? addDuration(a, d, 1) : mismatch("+", a, b);
  }
  if (a instanceof DurationValue) {
    if (b instanceof DurationValue) return new DurationValue(a.months + b.months, a.days + b.days, a.ms + b.ms);
    if (b instanceof DateValue) return addDuration(b, a, 1);
    if (typeof b === "number") return finite(a.totalMs + b);
  }
  if (isList(a) && isList(b)) return [...a, ...b];
  if (typeof a === "string" || typeof b === "string") {
    if (isList(a) || isList(b) || a instanceof ObjectValue || b instanceof ObjectValue) return mismatch("+", a, b);
    return toText(a) + toText(b);
  }
  return mismatch("+", a, b);
}

function subtract(a: Value, b: Value): Value {
  if (typeof a === "number" && typeof b === "number") return finite(a - b);
  if (a instanceof DateValue) {
    const d = asDuration(b);
    if (d) return addDuration(a, d, -1);
    const other = asDate(b);
    return other ? new DurationValue(0, 0, a.ms - other.ms) : mismatch("-", a, b);
  }
  if (a instanceof DurationValue) {
    if (b instanceof DurationValue) return new DurationValue(a.months - b.months, a.days - b.days, a.ms - b.ms);
    if (typeof b === "number") return finite(a.totalMs - b);
  }
  if (typeof a === "number" && b instanceof DurationValue) return finite(a - b.totalMs);
  return mismatch("-", a, b);
}

function multiplicative(op: "*" | "/" | "%", a: Value, b: Value): Value {
  if (typeof a === "number" && typeof b === "number") {
    if (op === "*") return finite(a * b);
    if (b === 0) return error("Division by zero");
    return finite(op === "/" ? a / b : a % b);
  }
  // Only a duration on the left scales: duration('1d') * 2, as the reference says.
  if (a instanceof DurationValue && typeof b === "number" && op !== "%") {
    if (op === "/" && b === 0) return error("Division by zero");
    const f = op === "*" ? b : 1 / b;
    return new DurationValue(a.months * f, a.days * f, a.ms * f);
  }
  return mismatch(op, a, b);
}

/** Applies a binary operator to two evaluated operands (&& and || short-circuit in the compiler). */
export function applyBinary(op: BinaryOp, a: Value, b: Value): Value {
  switch (op) {
    case "==":
      return valuesEqual(a, b);
    case "!=":
      return !valuesEqual(a, b);
    case "<":
    case "<=":
    case ">":
    case ">=": {
      const c = compareValues(a, b);
      if (c === null) return false;
      return op === "<" ? c < 0 : op === "<=" ? c <= 0 : op === ">" ? c > 0 : c >= 0;
    }
  }
  if (a instanceof ErrorValue) return a;
  if (b instanceof ErrorValue) return b;
  if (a === null || b === null) return null;
  if (op === "+") return add(a, b);
  if (op === "-") return subtract(a, b);
  return multiplicative(op as "*" | "/" | "%", a, b);
}

export function negate(v: Value): Value {
  if (v === null || v instanceof ErrorValue) return v;
  if (typeof v === "number") return -v;
  if (v instanceof DurationValue) return new DurationValue(-v.months, -v.days, -v.ms);
  return error(`Cannot negate ${typeOf(v)}`);
}
