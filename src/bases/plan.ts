/**
 * A parsed base compiled for running: every filter, formula, summary formula and column becomes
 * a closure once. Formula references are checked for cycles here, so a cycle is a typed error
 * naming the formulas, before any row is evaluated.
 */
import { IndxError } from "../core/errors.ts";
import type { Entry } from "./entry.ts";
import { compileExpression } from "./expr/compile.ts";
import { ExpressionError } from "./expr/errors.ts";
import type { Node } from "./expr/parser.ts";
import type { Compiled, Scope } from "./expr/scope.ts";
import { own, propertyOf } from "./functions/dispatch.ts";
import { FILE_FIELDS } from "./functions/file.ts";
import { type BaseDefinition, expressionPosition, type FilterNode, type KeyPath, locatedError } from "./parse.ts";
import { type FilterPlan, type FilterStatement, planFilter } from "./prefilter.ts";
import { isTruthy } from "./values.ts";

export interface CompiledBase {
  definition: BaseDefinition;
  filter: ((s: Scope) => boolean) | null;
  formulas: ReadonlyMap<string, Compiled>;
  summaries: ReadonlyMap<string, Compiled>;
  /** Filters of each view, by index. */
  viewFilters: readonly (((s: Scope) => boolean) | null)[];
  /** Why a view cannot run (its filters do not compile), by index; null for a view that can. */
  viewErrors: readonly (IndxError | null)[];
  /** What the index can answer of the filters: the base's and each view's (prefilter.ts). */
  plans: { filter: FilterPlan | null; views: readonly (FilterPlan | null)[] };
}

/** Compiles a base; `text` and `source` locate problems (line, column, key path). */
export function compileBase(definition: BaseDefinition, text: string, source: string): CompiledBase {
  const fail = (err: ExpressionError, path: KeyPath): IndxError =>
    locatedError(source, `${err.message} at character ${err.at + 1} of the expression`, path, expressionPosition(text, path, err.at), err.bound);
  const expression = (src: string, path: KeyPath) => {
    try {
      return compileExpression(src);
    } catch (err) {
      if (err instanceof ExpressionError) throw fail(err, path);
      throw err;
    }
  };
  const formulas = new Map<string, Compiled>();
  const references = new Map<string, ReadonlySet<string>>();
  for (const [name, f] of definition.formulas) {
    const compiled = expression(f.source, f.path);
    formulas.set(name, compiled.run);
    references.set(name, compiled.formulas);
  }
  checkCycles(references, (cycle) => locatedError(source, `formulas refer to each other in a cycle: ${cycle.join(" → ")}`, ["formulas", cycle[0]], null));
  const summaries = new Map<string, Compiled>();
  for (const [name, s] of definition.summaries) summaries.set(name, expression(s.source, s.path).run);
  const syntax = new Map<FilterStatement, Node>();
  const statement = (node: FilterStatement) => {
    const compiled = expression(node.source, node.path);
    syntax.set(node, compiled.syntax);
    return compiled.run;
  };
  const filterOf = (node: FilterNode | null) => (node ? compileFilter(node, statement) : null);
  const syntaxOf = (s: FilterStatement): Node => {
    const parsed = syntax.get(s);
    if (parsed === undefined) throw new IndxError("internal", "A filter statement was planned before it was compiled");
    return parsed;
  };
  const planOf = (node: FilterNode | null) => (node ? planFilter(node, syntaxOf) : null);
  // A view's filters that do not compile are that view's error (viewErrors): the other views run.
  const viewErrors: (IndxError | null)[] = [];
  const viewFilters = definition.views.map((v, i) => {
    try {
      const filter = filterOf(v.filters);
      viewErrors.push(null);
      return filter;
    } catch (err) {
      if (!(err instanceof IndxError)) throw err;
      viewErrors.push(viewError(v.name || `#${i + 1}`, err));
      return null;
    }
  });
  return {
    definition,
    filter: filterOf(definition.filters),
    formulas,
    summaries,
    viewFilters,
    viewErrors,
    plans: { filter: planOf(definition.filters), views: definition.views.map((v, i) => (viewErrors[i] ? null : planOf(v.filters))) },
  };
}

/** A view's own error, naming the view: the same code and place, the view's name in front and in details. */
function viewError(name: string, err: IndxError): IndxError {
  return new IndxError(err.code, `View '${name}': ${err.message}`, { ...err.details, view: name });
}

function compileFilter(node: FilterNode, expression: (statement: FilterStatement) => Compiled): (s: Scope) => boolean {
  switch (node.kind) {
    case "constant": {
      const value = node.value;
      return () => value;
    }
    case "expression": {
      const run = expression(node);
      return (s) => isTruthy(run(s));
    }
    case "and": {
      const items = node.items.map((i) => compileFilter(i, expression));
      return (s) => items.every((f) => f(s));
    }
    case "or": {
      const items = node.items.map((i) => compileFilter(i, expression));
      return (s) => items.some((f) => f(s));
    }
    case "not": {
      // "None of the following are true": NOR over the list.
      const items = node.items.map((i) => compileFilter(i, expression));
      return (s) => !items.some((f) => f(s));
    }
  }
}

function checkCycles(references: ReadonlyMap<string, ReadonlySet<string>>, error: (cycle: readonly [string, ...string[]]) => IndxError): void {
  const done = new Set<string>();
  const visit = (name: string, stack: string[]) => {
    const at = stack.indexOf(name);
    // stack[at] is name: the cycle starts and ends with it.
    if (at >= 0) throw error([name, ...stack.slice(at + 1), name]);
    const refs = references.get(name);
    if (done.has(name) || refs === undefined) return;
    stack.push(name);
    for (const next of refs) visit(next, stack);
    stack.pop();
    done.add(name);
  };
  for (const name of references.keys()) visit(name, []);
}

/**
 * A property id (`note.x`, `file.x`, `formula.x`, or a bare name, which is a note property) as a
 * closure. Like Obsidian's parsePropertyId: an unknown prefix makes the whole id a note property.
 */
export function compileProperty(id: string): Compiled {
  const dot = id.indexOf(".");
  const prefix = dot > 0 ? id.slice(0, dot) : "";
  const name = id.slice(dot + 1);
  if (prefix === "file") {
    const field = own(FILE_FIELDS, name);
    return field ? (s) => field(s.row.entry, s) : () => null;
  }
  if (prefix === "formula") return (s) => s.env.formula(s.row, name);
  if (prefix === "note") return (s) => propertyOf(s.row.entry, name);
  return (s) => propertyOf(s.row.entry, id);
}

/** The file `this` stands for when a query has none: an empty file at the vault root. */
export const NO_FILE: Entry = {
  path: "",
  kind: "base",
  size: 0,
  mtimeMs: 0,
  ctimeMs: () => 0,
  properties: {},
  tags: () => [],
  links: () => [],
  embeds: () => [],
  backlinks: () => [],
};
