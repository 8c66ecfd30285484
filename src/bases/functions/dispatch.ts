/** Which field or method a name means on a value: the tables of each type, then the ones every value has. */
import type { Entry } from "../entry.ts";
import type { Compiled, Scope } from "../expr/scope.ts";
import { DateValue, DurationValue, ErrorValue, FileValue, isList, LinkValue, ObjectValue, ThisValue, type Value } from "../values.ts";
import { ANY_METHODS } from "./any.ts";
import { DATE_FIELDS, DATE_METHODS, DURATION_FIELDS } from "./date.ts";
import { FILE_FIELDS, FILE_METHODS, LINK_METHODS } from "./file.ts";
import { LIST_FIELDS, LIST_METHODS } from "./list.ts";
import { NUMBER_METHODS } from "./number.ts";
import { OBJECT_METHODS, REGEXP_METHODS } from "./object.ts";
import { STRING_FIELDS, STRING_METHODS } from "./string.ts";
import type { AnyMethodDef, MethodTable } from "./types.ts";

/** Every method name of any type: a call of any other name is a compile error. */
export const METHOD_NAMES: ReadonlySet<string> = new Set(
  [ANY_METHODS, DATE_METHODS, FILE_METHODS, LINK_METHODS, LIST_METHODS, NUMBER_METHODS, OBJECT_METHODS, REGEXP_METHODS, STRING_METHODS].flatMap((t) =>
    Object.keys(t),
  ),
);

/** A table's own entry: never Object.prototype's (toString, constructor) by accident. */
export const own = <T>(table: Readonly<Record<string, T>>, name: string): T | undefined => (Object.hasOwn(table, name) ? table[name] : undefined);

/** A note property of a file, by its exact name, else case-insensitively (property names are, in Obsidian). */
export function propertyOf(entry: Entry, name: string): Value {
  if (Object.hasOwn(entry.properties, name)) return entry.properties[name]!;
  const lower = name.toLowerCase();
  for (const key in entry.properties) if (key.toLowerCase() === lower) return entry.properties[key]!;
  return null;
}

/** `value.name`; null for a name the value does not have. */
export function fieldOf(v: Value, name: string, scope: Scope): Value {
  if (v === null || v instanceof ErrorValue) return v;
  if (v instanceof ThisValue) {
    if (name === "file") return new FileValue(v.entry);
    if (name === "note") return new ObjectValue(v.entry.properties);
    return propertyOf(v.entry, name);
  }
  if (v instanceof FileValue) return own(FILE_FIELDS, name)?.(v.entry, scope) ?? null;
  if (typeof v === "string") return own(STRING_FIELDS, name)?.(v, scope) ?? null;
  if (isList(v)) return own(LIST_FIELDS, name)?.(v, scope) ?? null;
  if (v instanceof DateValue) return own(DATE_FIELDS, name)?.(v, scope) ?? null;
  if (v instanceof DurationValue) return own(DURATION_FIELDS, name)?.(v, scope) ?? null;
  if (v instanceof ObjectValue) return Object.hasOwn(v.fields, name) ? v.fields[name]! : null;
  return null;
}

/** `value[index]`: list items (0-based), object keys, characters, file fields. */
export function indexOf(v: Value, index: Value, scope: Scope): Value {
  if (v === null || v instanceof ErrorValue) return v;
  if (index instanceof ErrorValue) return index;
  if (typeof index === "number") {
    if (isList(v)) return v[index] ?? null;
    if (typeof v === "string") return v[index] ?? null;
    return null;
  }
  return typeof index === "string" ? fieldOf(v, index, scope) : null;
}

/** A method bound to its receiver; lazy ones take their arguments unevaluated. */
export type BoundMethod =
  | { lazy: false; arity: readonly [number, number]; call(args: readonly Value[], scope: Scope): Value }
  | { lazy: true; arity: readonly [number, number]; call(args: readonly Compiled[], scope: Scope): Value };

export function bind<T>(def: AnyMethodDef<T>, self: T): BoundMethod {
  if ("lazy" in def) return { lazy: true, arity: def.arity, call: (args, scope) => def.call(self, args, scope) };
  return { lazy: false, arity: def.arity, call: (args, scope) => def.call(self, args, scope) };
}

/**
 * The method `name` of a value, bound to it; the methods every value has come last. A link takes
 * the string methods of its link text when it has no method of that name
 * (file.embeds[0].containsAny("jpg")).
 */
export function methodFor(v: Value, name: string): BoundMethod | null {
  const typed = ownMethod(v, name);
  if (typed) return typed;
  const text = own(STRING_METHODS, name);
  if (v instanceof LinkValue && text) return bind(text, v.linkpath);
  const any = own(ANY_METHODS, name);
  return any ? bind(any, v) : null;
}

function ownMethod(v: Value, name: string): BoundMethod | null {
  const pick = <T>(table: MethodTable<T>, self: T) => {
    const def = own(table, name);
    return def ? bind(def, self) : null;
  };
  if (v === null) return null;
  if (typeof v === "string") return pick(STRING_METHODS, v);
  if (typeof v === "number") return pick(NUMBER_METHODS, v);
  if (isList(v)) return pick(LIST_METHODS, v);
  if (v instanceof DateValue) return pick(DATE_METHODS, v);
  if (v instanceof FileValue) return pick(FILE_METHODS, v.entry);
  if (v instanceof LinkValue) return pick(LINK_METHODS, v);
  if (v instanceof ObjectValue) return pick(OBJECT_METHODS, v);
  if (v instanceof RegExp) return pick(REGEXP_METHODS, v);
  return null;
}
