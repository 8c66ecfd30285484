import { compareValues, toText } from "./expr/operators.ts";
import { DateValue, DurationValue, isEmpty, isList, type Value } from "./values.ts";

const collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });

/** Values of different types sort in this order; within a type by their natural order. */
function rank(v: Value): number {
  if (typeof v === "number" || v instanceof DurationValue) return 0;
  if (v instanceof DateValue) return 1;
  if (typeof v === "boolean") return 3;
  return 2;
}

/**
 * Ascending order for sorts, list.sort() and groups: numbers 0→9, dates old→new, text A→Z
 * (natural, case-insensitive). Empty values are not ordered here: callers put them last
 * whatever the direction (docs/decisions.md, "Bases sorting").
 */
export function ascending(a: Value, b: Value): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 2) {
    const c = collator.compare(toText(a), toText(b));
    return c !== 0 ? c : toText(a) < toText(b) ? -1 : toText(a) > toText(b) ? 1 : 0;
  }
  return compareValues(a, b) ?? 0;
}

/** Whether a sort key is empty (null, "", [] or {}), so it sorts after every other row. */
export const sortsLast = (v: Value) => isEmpty(v) || (isList(v) && v.every((x) => x === null));

/** A value reduced to what ordering needs, computed once per row instead of once per comparison. */
export interface SortKey {
  empty: boolean;
  rank: number;
  /** Numbers, durations (ms), dates (ms), booleans (0/1). */
  num: number;
  /** Text of everything else. */
  text: string;
}

export function sortKeyOf(v: Value): SortKey {
  if (sortsLast(v)) return { empty: true, rank: 0, num: 0, text: "" };
  const r = rank(v);
  if (r === 2) return { empty: false, rank: r, num: 0, text: toText(v) };
  const num = typeof v === "number" ? v : v instanceof DurationValue ? v.totalMs : v instanceof DateValue ? v.ms : Number(v);
  return { empty: false, rank: r, num, text: "" };
}

/** ascending() on precomputed keys; empty keys last whatever the direction. */
export function compareSortKeys(a: SortKey, b: SortKey, descending: boolean): number {
  if (a.empty || b.empty) return a.empty === b.empty ? 0 : a.empty ? 1 : -1;
  let c = a.rank - b.rank;
  if (c === 0) c = a.rank === 2 ? collator.compare(a.text, b.text) || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0) : a.num - b.num;
  return descending ? -c : c;
}
