import { IndxError } from "../../core/errors.ts";
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

/** At least `N` items (up to 3, the most any method requires), as the arity check before every call guarantees. */
export type AtLeast<N extends number, V> = N extends 3
  ? readonly [V, V, V, ...V[]]
  : N extends 2
    ? readonly [V, V, ...V[]]
    : N extends 1
      ? readonly [V, ...V[]]
      : readonly V[];

function hasAtLeast<N extends number, V>(args: readonly V[], n: N): args is AtLeast<N, V> {
  return args.length >= n;
}

function tooFew(given: number, min: number): IndxError {
  return new IndxError("internal", `A Bases method was called with ${given} arguments, fewer than the ${min} its arity check lets through`);
}

/** A method; its `call` sees the arguments its arity requires as present (checked, not assumed). */
export const method = <T, N extends number = number>(
  arity: readonly [N, number],
  call: (self: T, args: AtLeast<N, Value>, scope: Scope) => Value,
): MethodDef<T> => ({
  arity,
  call(self, args, scope) {
    if (!hasAtLeast(args, arity[0])) throw tooFew(args.length, arity[0]);
    return call(self, args, scope);
  },
});

export const lazyMethod = <T, N extends number = number>(
  arity: readonly [N, number],
  call: (self: T, args: AtLeast<N, Compiled>, scope: Scope) => Value,
): LazyMethodDef<T> => ({
  arity,
  lazy: true,
  call(self, args, scope) {
    if (!hasAtLeast(args, arity[0])) throw tooFew(args.length, arity[0]);
    return call(self, args, scope);
  },
});
