import { toText } from "../expr/operators.ts";
import { isEmpty, isTruthy, typeOf, type Value } from "../values.ts";
import { type MethodTable, method } from "./types.ts";

/** Type names isType() accepts besides those of typeOf(). */
const ALIASES: Record<string, string> = { regex: "regexp", array: "list", text: "string", datetime: "date" };

/** Methods every value has, null included. */
export const ANY_METHODS: MethodTable<Value> = {
  isTruthy: method([0, 0], (v) => isTruthy(v)),
  isType: method([1, 1], (v, [name]) => {
    if (typeof name !== "string") return false;
    const wanted = name.toLowerCase();
    return typeOf(v) === (ALIASES[wanted] ?? wanted);
  }),
  toString: method<Value>([0, 0], (v) => toText(v)),
  isEmpty: method([0, 0], (v) => isEmpty(v)),
};
