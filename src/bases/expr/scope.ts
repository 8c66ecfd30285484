import type { EvalBudget } from "../budget.ts";
import type { Entry, World } from "../entry.ts";
import type { Value } from "../values.ts";

/** A compiled expression: parse once, then call once per row. */
export type Compiled = (scope: Scope) => Value;

/** What stays the same for every row of one query. */
export interface Env {
  world: World;
  /** The base file, or the note that embeds the base block. */
  thisEntry: Entry;
  /** now() and today() answer the same instant for the whole query. */
  now: number;
  /** Local midnight of `now`. */
  today: number;
  /** What the query's expressions may still cost (src/bases/budget.ts). */
  budget: EvalBudget;
  /** A formula's value for a row, computed once and cached on the row. */
  formula(row: Row, name: string): Value;
}

/** Marks a formula whose evaluation is under way on a row: meeting it again is a cycle. */
export const EVALUATING = Symbol("evaluating");

/** One row being evaluated: its file and its formula values so far. */
export interface Row {
  entry: Entry;
  /** Made on the first formula the row needs (most rows of a filtered-out file need none). */
  formulas: Map<string, Value | typeof EVALUATING> | null;
}

/** The implicit names of filter/map/reduce (value, index, acc) and of summary formulas (values). */
export type Locals = Readonly<Record<string, Value>>;

export interface Scope {
  env: Env;
  row: Row;
  locals: Locals | null;
}
