import { toText } from "../expr/operators.ts";
import type { ObjectValue } from "../values.ts";
import { type MethodTable, method } from "./types.ts";

export const OBJECT_METHODS: MethodTable<ObjectValue> = {
  isEmpty: method([0, 0], (o) => Object.keys(o.fields).length === 0),
  keys: method([0, 0], (o) => Object.keys(o.fields)),
  values: method([0, 0], (o) => Object.values(o.fields)),
};

export const REGEXP_METHODS: MethodTable<RegExp> = {
  // A fresh copy: a /g regex keeps lastIndex between calls, which would make rows depend on order.
  matches: method([1, 1], (re, [text]) => new RegExp(re.source, re.flags).test(toText(text!))),
};
