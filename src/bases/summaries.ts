/**
 * View summaries: the built-in ones of Obsidian (Average, Min, Max, Sum, Range, Median, Stddev,
 * Earliest, Latest, Checked, Unchecked, Empty, Filled, Unique) over one column's values.
 */
import { valuesEqual } from "./expr/operators.ts";
import { DateValue, DurationValue, error, isEmpty, type Value } from "./values.ts";

const numbers = (values: readonly Value[]) => values.filter((v): v is number => typeof v === "number");
const dates = (values: readonly Value[]) => values.filter((v): v is DateValue => v instanceof DateValue);

function median(ns: number[]): Value {
  if (ns.length === 0) return null;
  const sorted = [...ns].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const upper = sorted[mid];
  const lower = sorted[mid - 1];
  if (upper === undefined) return null;
  return sorted.length % 2 || lower === undefined ? upper : (lower + upper) / 2;
}

function stddev(ns: number[]): Value {
  if (ns.length === 0) return null;
  const mean = ns.reduce((a, b) => a + b, 0) / ns.length;
  return Math.sqrt(ns.reduce((a, n) => a + (n - mean) ** 2, 0) / ns.length);
}

/** Range of numbers is max − min; of dates, the duration from the earliest to the latest. */
function range(values: readonly Value[]): Value {
  const ns = numbers(values);
  if (ns.length) return Math.max(...ns) - Math.min(...ns);
  const ds = dates(values).map((d) => d.ms);
  return ds.length ? new DurationValue(0, 0, Math.max(...ds) - Math.min(...ds)) : null;
}

function extremeDate(values: readonly Value[], latest: boolean): Value {
  const ds = dates(values);
  if (ds.length === 0) return null;
  return ds.reduce((best, d) => ((latest ? d.ms > best.ms : d.ms < best.ms) ? d : best));
}

const BUILT_INS: Readonly<Record<string, (values: readonly Value[]) => Value>> = {
  Average: (vs) => {
    const ns = numbers(vs);
    return ns.length ? ns.reduce((a, b) => a + b, 0) / ns.length : null;
  },
  Min: (vs) => (numbers(vs).length ? Math.min(...numbers(vs)) : null),
  Max: (vs) => (numbers(vs).length ? Math.max(...numbers(vs)) : null),
  Sum: (vs) => numbers(vs).reduce((a, b) => a + b, 0),
  Range: range,
  Median: (vs) => median(numbers(vs)),
  Stddev: (vs) => stddev(numbers(vs)),
  Earliest: (vs) => extremeDate(vs, false),
  Latest: (vs) => extremeDate(vs, true),
  Checked: (vs) => vs.filter((v) => v === true).length,
  // An absent checkbox shows unchecked, so it counts here (docs/decisions.md, "Bases summaries").
  Unchecked: (vs) => vs.filter((v) => v !== true).length,
  Empty: (vs) => vs.filter(isEmpty).length,
  Filled: (vs) => vs.filter((v) => !isEmpty(v)).length,
  Unique: (vs) => vs.filter((v, i) => !isEmpty(v) && vs.findIndex((w) => valuesEqual(v, w)) === i).length,
};

const BY_LOWER_NAME = new Map(Object.entries(BUILT_INS).map(([name, fn]) => [name.toLowerCase(), fn]));

/** A built-in summary of `values`, or an error value for a name that is neither built in nor custom. */
export function builtInSummary(name: string, values: readonly Value[]): Value {
  const fn = BY_LOWER_NAME.get(name.toLowerCase());
  return fn ? fn(values) : error(`Unknown summary '${name}'`);
}
