/** Which field or method a name means on a value: the tables of each type, then the ones every value has. */
import { EvalBudget } from "../budget.ts";
import type { Entry } from "../entry.ts";
import type { Compiled, Scope } from "../expr/scope.ts";
import { DateValue, DurationValue, ErrorValue, error, FileValue, isList, LinkValue, ObjectValue, ThisValue, type Value } from "../values.ts";
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
  if (Object.hasOwn(entry.properties, name)) return entry.properties[name] ?? null;
  const lower = name.toLowerCase();
  for (const key in entry.properties) if (key.toLowerCase() === lower) return entry.properties[key] ?? null;
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
  if (v instanceof ObjectValue) return Object.hasOwn(v.fields, name) ? (v.fields[name] ?? null) : null;
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

/** What callMethod() returns when the value has no method of that name. */
export const NO_METHOD = Symbol("no method");

/** Calls one method: checks the argument count, evaluates the arguments unless the method is lazy. */
function callDef<T>(def: AnyMethodDef<T>, self: T, name: string, args: readonly Compiled[], scope: Scope): Value {
  const [min, max] = def.arity;
  if (args.length < min || args.length > max) return error(`${name}() takes ${min === max ? min : `${min} to ${max}`} arguments`);
  // The receiver is paid for before the call, the result after it (src/bases/budget.ts).
  const budget = scope.env.budget;
  budget.spend(EvalBudget.sizeOf(self as Value));
  if ("lazy" in def) return budget.made(def.call(self, args, scope));
  const values: Value[] = [];
  for (const a of args) {
    const v = a(scope);
    if (v instanceof ErrorValue) return v;
    values.push(v);
  }
  return budget.made(def.call(self, values, scope));
}

/**
 * Calls the method `name` of a value: its type's method, else one every value has. A link takes
 * the string methods of its link text when it has no method of that name
 * (file.embeds[0].containsAny("jpg")). NO_METHOD when there is none.
 */
export function callMethod(v: Value, name: string, args: readonly Compiled[], scope: Scope): Value | typeof NO_METHOD {
  const typed = callOwnMethod(v, name, args, scope);
  if (typed !== NO_METHOD) return typed;
  const text = own(STRING_METHODS, name);
  if (v instanceof LinkValue && text) return callDef(text, v.linkpath, name, args, scope);
  const any = own(ANY_METHODS, name);
  return any ? callDef(any, v, name, args, scope) : NO_METHOD;
}

function callOwnMethod(v: Value, name: string, args: readonly Compiled[], scope: Scope): Value | typeof NO_METHOD {
  if (v === null) return NO_METHOD;
  if (typeof v === "string") return callIn(STRING_METHODS, v, name, args, scope);
  if (typeof v === "number") return callIn(NUMBER_METHODS, v, name, args, scope);
  if (isList(v)) return callIn(LIST_METHODS, v, name, args, scope);
  if (v instanceof DateValue) return callIn(DATE_METHODS, v, name, args, scope);
  if (v instanceof FileValue) return callIn(FILE_METHODS, v.entry, name, args, scope);
  if (v instanceof LinkValue) return callIn(LINK_METHODS, v, name, args, scope);
  if (v instanceof ObjectValue) return callIn(OBJECT_METHODS, v, name, args, scope);
  if (v instanceof RegExp) return callIn(REGEXP_METHODS, v, name, args, scope);
  return NO_METHOD;
}

function callIn<T>(table: MethodTable<T>, self: T, name: string, args: readonly Compiled[], scope: Scope): Value | typeof NO_METHOD {
  const def = own(table, name);
  return def ? callDef(def, self, name, args, scope) : NO_METHOD;
}
