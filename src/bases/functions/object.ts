import { toText } from "../expr/operators.ts";
import { regexTest } from "../regex.ts";
import type { ObjectValue } from "../values.ts";
import { type MethodTable, method } from "./types.ts";

export const OBJECT_METHODS: MethodTable<ObjectValue> = {
  isEmpty: method([0, 0], (o) => Object.keys(o.fields).length === 0),
  keys: method([0, 0], (o) => Object.keys(o.fields)),
  values: method([0, 0], (o) => Object.values(o.fields)),
};

export const REGEXP_METHODS: MethodTable<RegExp> = {
  // On RE2 (src/bases/regex.ts): linear in the text, and no lastIndex kept between rows.
  matches: method([1, 1], (re, [text]) => regexTest(re, toText(text))),
};
