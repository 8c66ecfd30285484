import { toText } from "../expr/operators.ts";
import { regexReplace, regexSplit } from "../regex.ts";
import { error, type Value } from "../values.ts";
import { type FieldTable, type MethodTable, method } from "./types.ts";

const texts = (args: readonly Value[]) => args.map(toText);

/** Title case: the first letter of each word upper-cased, the rest kept. */
const titleCase = (s: string) => s.toLowerCase().replace(/(^|[\s\-_([{"'])(\p{L})/gu, (_, sep: string, c: string) => sep + c.toUpperCase());

function replaceText(self: string, pattern: Value, replacement: Value): Value {
  const repl = toText(replacement);
  if (pattern instanceof RegExp) return regexReplace(self, pattern, repl);
  if (typeof pattern !== "string") return error("replace() takes a string or a regular expression");
  return self.replaceAll(pattern, () => repl);
}

function splitText(self: string, separator: Value, limit: Value): Value {
  if (!(separator instanceof RegExp) && typeof separator !== "string") return error("split() takes a string or a regular expression");
  if (limit !== null && limit !== undefined && typeof limit !== "number") return error("split() takes a number as its limit");
  if (separator instanceof RegExp) return regexSplit(self, separator, typeof limit === "number" ? limit : null);
  return typeof limit === "number" ? self.split(separator, limit) : self.split(separator);
}

const integer = (v: Value | undefined): number | null => (v === undefined || v === null ? null : typeof v === "number" ? Math.trunc(v) : Number.NaN);

export const STRING_FIELDS: FieldTable<string> = {
  length: (s) => s.length,
};

/** String methods. Matching is case-sensitive, as in JavaScript (docs/decisions.md, "Bases values"). */
export const STRING_METHODS: MethodTable<string> = {
  contains: method([1, 1], (s, [q]) => s.includes(toText(q))),
  containsAll: method([1, Infinity], (s, args) => texts(args).every((q) => s.includes(q))),
  containsAny: method([1, Infinity], (s, args) => texts(args).some((q) => s.includes(q))),
  startsWith: method([1, 1], (s, [q]) => s.startsWith(toText(q))),
  endsWith: method([1, 1], (s, [q]) => s.endsWith(toText(q))),
  isEmpty: method([0, 0], (s) => s.length === 0),
  lower: method([0, 0], (s) => s.toLowerCase()),
  title: method([0, 0], (s) => titleCase(s)),
  trim: method([0, 0], (s) => s.trim()),
  replace: method([2, 2], (s, [pattern, replacement]) => replaceText(s, pattern, replacement)),
  repeat: method([1, 1], (s, [n]) => {
    const count = integer(n);
    return count === null || Number.isNaN(count) || count < 0 || count * s.length > 1_000_000
      ? error("repeat() takes a small non-negative number")
      : s.repeat(count);
  }),
  reverse: method([0, 0], (s) => [...s].reverse().join("")),
  slice: method([1, 2], (s, [start, end]) => {
    const a = integer(start);
    const b = integer(end);
    if (Number.isNaN(a) || Number.isNaN(b)) return error("slice() takes numbers");
    return s.slice(a ?? 0, b ?? undefined);
  }),
  split: method([1, 2], (s, [separator, limit]) => splitText(s, separator, limit ?? null)),
};
