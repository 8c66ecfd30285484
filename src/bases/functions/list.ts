import { toText, valuesEqual } from "../expr/operators.ts";
import type { Scope } from "../expr/scope.ts";
import { ascending, sortsLast } from "../order.ts";
import { DateValue, DurationValue, error, isList, isTruthy, type Value } from "../values.ts";
import { type FieldTable, lazyMethod, type MethodTable, method } from "./types.ts";

type List = readonly Value[];

const includes = (list: List, v: Value) => list.some((item) => valuesEqual(item, v));

/** Flattens one argument list given as values or as a list: containsAll("a", "b") or containsAll(["a", "b"]). */
const needles = (args: readonly Value[]): List => {
  const [only] = args;
  return args.length === 1 && only !== undefined && isList(only) ? only : args;
};

const numbers = (list: List): number[] => list.flatMap((v) => (typeof v === "number" ? [v] : v instanceof DurationValue ? [v.totalMs] : []));
const dates = (list: List): DateValue[] => list.filter((v): v is DateValue => v instanceof DateValue);

function sum(list: List): number {
  return numbers(list).reduce((a, b) => a + b, 0);
}

function median(list: List): Value {
  const ns = numbers(list).sort((a, b) => a - b);
  if (ns.length === 0) return null;
  const mid = ns.length >> 1;
  const upper = ns[mid];
  const lower = ns[mid - 1];
  if (upper === undefined) return null;
  return ns.length % 2 || lower === undefined ? upper : (lower + upper) / 2;
}

function stddev(list: List): Value {
  const ns = numbers(list);
  if (ns.length === 0) return null;
  const mean = ns.reduce((a, b) => a + b, 0) / ns.length;
  return Math.sqrt(ns.reduce((a, n) => a + (n - mean) ** 2, 0) / ns.length);
}

function extreme(list: List, pick: 1 | -1): Value {
  const candidates = list.filter((v) => !sortsLast(v));
  if (candidates.length === 0) return null;
  return candidates.reduce((best, v) => (ascending(v, best) * pick > 0 ? v : best));
}

function extremeDate(list: List, pick: 1 | -1): Value {
  const ds = dates(list);
  if (ds.length === 0) return null;
  return ds.reduce((best, d) => ((d.ms - best.ms) * pick > 0 ? d : best));
}

const withLocals = (scope: Scope, locals: Record<string, Value>): Scope => ({ env: scope.env, row: scope.row, locals: { ...scope.locals, ...locals } });

const MAX_FLAT_DEPTH = 64;
function flatten(list: List, depth: number): Value[] {
  return list.flatMap((v) => (isList(v) && depth < MAX_FLAT_DEPTH ? flatten(v, depth + 1) : [v]));
}

export const LIST_FIELDS: FieldTable<List> = {
  length: (l) => l.length,
};

export const LIST_METHODS: MethodTable<List> = {
  contains: method([1, 1], (l, [v]) => includes(l, v)),
  containsAll: method([1, Infinity], (l, args) => needles(args).every((v) => includes(l, v))),
  containsAny: method([1, Infinity], (l, args) => needles(args).some((v) => includes(l, v))),
  filter: lazyMethod([1, 1], (l, [test], scope) => {
    const out: Value[] = [];
    l.forEach((value, index) => {
      if (isTruthy(test(withLocals(scope, { value, index })))) out.push(value);
    });
    return out;
  }),
  map: lazyMethod([1, 1], (l, [body], scope) => l.map((value, index) => body(withLocals(scope, { value, index })))),
  reduce: lazyMethod([2, 2], (l, [body, init], scope) => {
    let acc = init(scope);
    l.forEach((value, index) => {
      acc = body(withLocals(scope, { value, index, acc }));
    });
    return acc;
  }),
  flat: method([0, 0], (l) => flatten(l, 0)),
  join: method([0, 1], (l, [sep]) => l.map(toText).join(sep === undefined || sep === null ? "," : toText(sep))),
  isEmpty: method([0, 0], (l) => l.length === 0),
  reverse: method([0, 0], (l) => [...l].reverse()),
  slice: method([0, 2], (l, [start, end]) => {
    if ((start != null && typeof start !== "number") || (end != null && typeof end !== "number")) return error("slice() takes numbers");
    return l.slice(start ?? 0, end ?? undefined);
  }),
  sort: method([0, 0], (l) => [...l].sort((a, b) => (sortsLast(a) ? (sortsLast(b) ? 0 : 1) : sortsLast(b) ? -1 : ascending(a, b)))),
  unique: method([0, 0], (l, _args, scope) => {
    // Each item is compared with those before it.
    scope.env.budget.spend((l.length * l.length) / 2);
    return l.filter((v, i) => l.findIndex((w) => valuesEqual(v, w)) === i);
  }),
  sum: method([0, 0], (l) => sum(l)),
  mean: method([0, 0], (l) => {
    const ns = numbers(l);
    return ns.length ? sum(l) / ns.length : null;
  }),
  median: method([0, 0], (l) => median(l)),
  stddev: method([0, 0], (l) => stddev(l)),
  min: method([0, 0], (l) => extreme(l, -1)),
  max: method([0, 0], (l) => extreme(l, 1)),
  earliest: method([0, 0], (l) => extremeDate(l, -1)),
  latest: method([0, 0], (l) => extremeDate(l, 1)),
};
