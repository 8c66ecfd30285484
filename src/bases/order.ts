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
