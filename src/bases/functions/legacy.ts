/**
 * The global functions of Bases before Obsidian 1.9.2 turned them into methods
 * (`contains(file.name, "x")` became `file.name.contains("x")`), which bases written then still
 * use: kepano's Shows.base filters on `not(empty(note.last))`. Each is the method it became,
 * called on its first argument (docs/decisions.md, "Legacy Bases functions").
 */
import type { Scope } from "../expr/scope.ts";
import { ascending } from "../order.ts";
import { DateValue, error, isEmpty, isTruthy, typeOf } from "../values.ts";
import { callMethod, NO_METHOD } from "./dispatch.ts";
import { type GlobalDef, method } from "./types.ts";

/** `name(target, ...rest)` as `target.name(...rest)`; null when the target has no such method (an absent property). */
function asMethod(name: string, arity: readonly [2, number], negate = false): GlobalDef {
  return method(arity, (_, [target, ...rest], scope: Scope) => {
    const result = callMethod(
      target,
      name,
      rest.map((v) => () => v),
      scope,
    );
    if (result === NO_METHOD) return negate ? true : target === null ? false : error(`${name}() cannot take a ${typeOf(target)} first`);
    return negate && typeof result === "boolean" ? !result : result;
  });
}

/** dateBefore(a, b) and its kind: the comparison they became (`a < b`); null when either is not a date. */
function dateComparison(test: (order: number) => boolean): GlobalDef {
  return method([2, 2], (_, [a, b]) => (a instanceof DateValue && b instanceof DateValue ? test(ascending(a, b)) : null));
}

export const LEGACY_GLOBALS: Readonly<Record<string, GlobalDef>> = {
  contains: asMethod("contains", [2, 2]),
  containsAll: asMethod("containsAll", [2, Infinity]),
  containsAny: asMethod("containsAny", [2, Infinity]),
  containsNone: asMethod("containsAny", [2, Infinity], true),
  empty: method([1, 1], (_, [v]) => isEmpty(v)),
  notEmpty: method([1, 1], (_, [v]) => !isEmpty(v)),
  not: method([1, 1], (_, [v]) => !isTruthy(v)),
  inFolder: asMethod("inFolder", [2, 2]),
  linksTo: asMethod("hasLink", [2, 2]),
  dateBefore: dateComparison((o) => o < 0),
  dateAfter: dateComparison((o) => o > 0),
  dateEquals: dateComparison((o) => o === 0),
  dateNotEquals: dateComparison((o) => o !== 0),
  dateOnOrBefore: dateComparison((o) => o <= 0),
  dateOnOrAfter: dateComparison((o) => o >= 0),
};
