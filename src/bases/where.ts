/**
 * note_list's `where`: one Bases expression kept as a filter of the listed notes
 * (docs/decisions.md, "note_list where"). It is compiled once, runs against the same snapshot of
 * the index as base_query, and the index narrows the notes first where it can (prefilter.ts).
 */
import { IndxError } from "../core/errors.ts";
import type { IndexStore } from "../index/storage/store.ts";
import type { Vault } from "../vault/vault.ts";
import { EvalBudget } from "./budget.ts";
import { startOfDay } from "./dates.ts";
import { compileExpression } from "./expr/compile.ts";
import { ExpressionError } from "./expr/errors.ts";
import type { Env } from "./expr/scope.ts";
import { NO_FILE } from "./plan.ts";
import { planExpression } from "./prefilter.ts";
import { basesResultKey, snapshotOf } from "./snapshot.ts";
import { isTruthy } from "./values.ts";

/** A compiled `where`: whether the note at a path (with this index id) passes it. */
export type NoteWhere = (note: { id: number; path: string }) => boolean;

export function noteWhere(index: IndexStore, vault: Vault, source: string): NoteWhere {
  const compiled = compileWhere(source);
  const snapshot = snapshotOf(index, vault);
  const now = Date.now();
  const env: Env = { world: snapshot, thisEntry: NO_FILE, now, today: startOfDay(now), budget: new EvalBudget(), formula: () => null };
  const ids = snapshot.narrowedIds([planExpression(compiled.syntax)], env);
  return (note) => {
    if (ids && !ids.has(note.id)) return false;
    const entry = snapshot.entry(note.path);
    return entry !== null && isTruthy(compiled.run({ env, row: { entry, formulas: null }, locals: null }));
  };
}

/** What a `where`'s result depends on besides the index and its text (snapshot.ts basesResultKey). */
export function noteWhereKey(vault: Vault, source: string): string {
  return basesResultKey(vault, source, Date.now());
}

function compileWhere(source: string) {
  try {
    const compiled = compileExpression(source);
    if (compiled.formulas.size > 0) throw new ExpressionError("where has no formulas: write the expression itself", source.indexOf("formula"));
    return compiled;
  } catch (err) {
    if (!(err instanceof ExpressionError)) throw err;
    const position = Math.min(err.at, source.length) + 1;
    throw new IndxError("validation_failed", `where: ${err.message} at character ${position}.`, { field: "where", position });
  }
}
