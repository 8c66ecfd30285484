import type { Compiled, Scope } from "../expr/scope.ts";
import type { Value } from "../values.ts";

/** A method of one value type: `self` is already of that type, `args` are evaluated. */
export interface MethodDef<T = Value> {
  /** Fewest and most arguments; Infinity for variadic. */
  arity: readonly [number, number];
  call(self: T, args: readonly Value[], scope: Scope): Value;
}

/** A method whose arguments are expressions evaluated per item (filter, map, reduce). */
export interface LazyMethodDef<T = Value> {
  arity: readonly [number, number];
  lazy: true;
  call(self: T, args: readonly Compiled[], scope: Scope): Value;
}

export type AnyMethodDef<T = Value> = MethodDef<T> | LazyMethodDef<T>;

/** A global function (date(), if(), link(), …). */
export type GlobalDef = AnyMethodDef<null>;

export type MethodTable<T> = Readonly<Record<string, AnyMethodDef<T>>>;

/** Fields read without a call (`text.length`, `date.year`, `file.name`). */
export type FieldTable<T> = Readonly<Record<string, (self: T, scope: Scope) => Value>>;

export const method = <T>(arity: readonly [number, number], call: MethodDef<T>["call"]): MethodDef<T> => ({ arity, call });
export const lazyMethod = <T>(arity: readonly [number, number], call: LazyMethodDef<T>["call"]): LazyMethodDef<T> => ({ arity, lazy: true, call });
