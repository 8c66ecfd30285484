import { IndxError } from "../core/errors.ts";
/**
 * Runs one view of a compiled base over the vault, in Obsidian's order (docs/decisions.md,
 * "Bases execution"): filter (base AND view), stable multi-key sort, limit, group, summaries.
 * Cells are made only for the rows of the page asked for.
 */
import { EvalBudget } from "./budget.ts";
import { type Cell, toCell } from "./cells.ts";
import { startOfDay } from "./dates.ts";
import type { Entry, World } from "./entry.ts";
import { type Env, EVALUATING, type Row, type Scope } from "./expr/scope.ts";
import { ascending, compareSortKeys, sortKeyOf, sortsLast } from "./order.ts";
import type { BaseView, Direction } from "./parse.ts";
import { type CompiledBase, compileProperty } from "./plan.ts";
import type { FilterPlan } from "./prefilter.ts";
import type { Prefilter } from "./snapshot.ts";
import { builtInSummary } from "./summaries.ts";
import { ErrorValue, error, type Value } from "./values.ts";

export interface Column {
  id: string;
  name: string;
}

export interface ResultRow {
  path: string;
  /** Index into `groups`; null when the view is not grouped. */
  group: number | null;
  cells: Record<string, Cell>;
}

export interface ResultGroup {
  key: Cell;
  count: number;
  summaries: Record<string, Cell>;
}

export interface ViewResult {
  columns: Column[];
  /** Rows that pass the filters, before the view's limit. */
  matched: number;
  /** Rows after the limit (what pages walk through). */
  total: number;
  rows: ResultRow[];
  groups: ResultGroup[] | null;
  summaries: Record<string, Cell>;
}

/** The vault a query reads, and the files it starts from. */
export interface QueryWorld extends World {
  /** The files the filters could keep, as far as `plans` tell (all of them without). */
  candidatesFor(plans: readonly FilterPlan[], env: Env, prefilter?: Prefilter): readonly Entry[];
}

export interface RunOptions {
  world: QueryWorld;
  /** How the index narrows the candidates first (snapshot.ts); the result is the same either way. */
  prefilter?: Prefilter;
  thisEntry: Entry;
  now: number;
  offset: number;
  pageSize: number;
}

/** The display name of a property id: the base's `properties` entry, else the name itself. */
function columnName(base: CompiledBase, id: string): string {
  const names = base.definition.displayNames;
  const canonical = /^(note|file|formula)\./.test(id) ? id : `note.${id}`;
  const named = names.get(id) ?? names.get(canonical) ?? (canonical.startsWith("note.") ? names.get(canonical.slice(5)) : undefined);
  if (named !== undefined) return named;
  return canonical.startsWith("file.") ? canonical : canonical.slice(canonical.indexOf(".") + 1);
}

function makeEnv(base: CompiledBase, opts: Omit<RunOptions, "offset" | "pageSize">): Env {
  const env: Env = {
    world: opts.world,
    budget: new EvalBudget(),
    thisEntry: opts.thisEntry,
    now: opts.now,
    today: startOfDay(opts.now),
    formula(row: Row, name: string): Value {
      row.formulas ??= new Map();
      const cached = row.formulas.get(name);
      if (cached !== undefined) return cached === EVALUATING ? error(`formula.${name} refers to itself`) : cached;
      const run = base.formulas.get(name);
      if (!run) return null;
      row.formulas.set(name, EVALUATING);
      const value = run({ env, row, locals: null });
      row.formulas.set(name, value);
      return value;
    },
  };
  return env;
}

export function runView(base: CompiledBase, viewIndex: number, opts: RunOptions): ViewResult {
  return pageOfView(evaluateView(base, viewIndex, opts), opts.offset, opts.pageSize);
}

/**
 * A view filtered, sorted, grouped and summarised, before its cells are made: what every page of
 * one query reads (kept per index version by base_query, docs/decisions.md).
 */
export interface EvaluatedView {
  columns: Column[];
  matched: number;
  groups: ResultGroup[] | null;
  summaries: Record<string, Cell>;
  /** The rows in display order, with their group's index. */
  ordered: Scope[];
  groupOf: number[] | null;
  columnIds: string[];
  env: Env;
}

export function evaluateView(base: CompiledBase, viewIndex: number, opts: Omit<RunOptions, "offset" | "pageSize">): EvaluatedView {
  const view = base.definition.views[viewIndex];
  if (view === undefined) throw new IndxError("internal", `A base has no view ${viewIndex}; callers pick one it has`);
  const env = makeEnv(base, opts);
  const scopeOf = (entry: Entry): Scope => ({ env, row: { entry, formulas: null }, locals: null });
  const baseFilter = base.filter;
  const viewFilter = base.viewFilters[viewIndex] ?? null;
  let rows: Scope[] = [];
  // A file the filters reject leaves its scope to the next one: most files of a vault are rejected.
  let spare: Scope | null = null;
  const plans = [base.plans.filter, base.plans.views[viewIndex] ?? null].filter((p) => p !== null);
  for (const entry of opts.world.candidatesFor(plans, env, opts.prefilter)) {
    const s: Scope = spare ?? scopeOf(entry);
    s.row.entry = entry;
    s.row.formulas = null;
    const kept = (baseFilter === null || baseFilter(s)) && (viewFilter === null || viewFilter(s));
    if (kept) rows.push(s);
    spare = kept ? null : s;
  }
  const matched = rows.length;
  rows = sortRows(rows, view);
  if (view.limit !== null) rows = rows.slice(0, view.limit);
  const columnIds = view.order.length ? view.order : ["file.name"];
  const columns = columnIds.map((id) => ({ id, name: columnName(base, id) }));
  const grouped = view.groupBy ? groupRows(rows, view.groupBy.property, view.groupBy.direction) : null;
  const ordered = grouped ? grouped.flatMap((g) => g.rows) : rows;
  const groupOf = grouped ? grouped.flatMap((g, i) => g.rows.map(() => i)) : null;
  const summarize = (subset: Scope[]) => summaries(base, view, subset, env);
  return {
    columns,
    matched,
    groups: grouped?.map((g) => ({ key: toCell(g.key), count: g.rows.length, summaries: summarize(g.rows) })) ?? null,
    summaries: summarize(ordered),
    ordered,
    groupOf,
    columnIds,
    env,
  };
}

/** One page of an evaluated view: its cells are made now, under a budget of their own. */
export function pageOfView(view: EvaluatedView, offset: number, pageSize: number): ViewResult {
  view.env.budget = new EvalBudget();
  const cellsOf = view.columnIds.map((id) => [id, compileProperty(id)] as const);
  const rows = view.ordered.slice(offset, offset + pageSize).map((s, i) => ({
    path: s.row.entry.path,
    group: view.groupOf?.[offset + i] ?? null,
    cells: Object.fromEntries(cellsOf.map(([id, get]) => [id, toCell(get(s))])),
  }));
  return { columns: view.columns, matched: view.matched, total: view.ordered.length, rows, groups: view.groups, summaries: view.summaries };
}

/** Empty keys last whatever the direction; otherwise ascending() flipped for DESC. */
function compareKeys(a: Value, b: Value, direction: Direction): number {
  const ea = sortsLast(a);
  const eb = sortsLast(b);
  if (ea || eb) return ea === eb ? 0 : ea ? 1 : -1;
  const c = ascending(a, b);
  return direction === "DESC" ? -c : c;
}

function sortRows(rows: Scope[], view: BaseView): Scope[] {
  if (view.sort.length === 0) return rows;
  const getters = view.sort.map((k) => compileProperty(k.property));
  const descending = view.sort.map((k) => k.direction === "DESC");
  const keyed = rows.map((s) => ({ s, keys: getters.map((get) => sortKeyOf(get(s))) }));
  // Array.prototype.sort is stable, as Obsidian's sort is.
  keyed.sort((a, b) => {
    for (const [i, desc] of descending.entries()) {
      const ka = a.keys[i];
      const kb = b.keys[i];
      if (ka === undefined || kb === undefined) continue;
      const c = compareSortKeys(ka, kb, desc);
      if (c !== 0) return c;
    }
    return 0;
  });
  return keyed.map((k) => k.s);
}

interface Group {
  key: Value;
  rows: Scope[];
}

/** One group per distinct value (a list is one key), rows in sort order; the empty group last. */
function groupRows(rows: Scope[], property: string, direction: Direction): Group[] {
  const get = compileProperty(property);
  const byKey = new Map<string, Group>();
  for (const s of rows) {
    const raw = get(s);
    const key = sortsLast(raw) ? null : raw;
    const id = groupId(key);
    let group = byKey.get(id);
    if (!group) byKey.set(id, (group = { key, rows: [] }));
    group.rows.push(s);
  }
  return [...byKey.values()].sort((a, b) => compareKeys(a.key, b.key, direction));
}

/** Equal values, equal ids: plain values by type and value, the rest by their typed JSON form. */
function groupId(key: Value): string {
  switch (typeof key) {
    case "string":
      return `s${key}`;
    case "number":
      return `n${key}`;
    case "boolean":
      return `b${key}`;
  }
  return JSON.stringify(toCell(key));
}

function summaries(base: CompiledBase, view: BaseView, rows: Scope[], env: Env): Record<string, Cell> {
  const out: Record<string, Cell> = {};
  for (const [id, name] of Object.entries(view.summaries)) {
    const get = compileProperty(id);
    const values = rows.map(get);
    const custom = base.summaries.get(name);
    let value: Value;
    if (custom) value = custom({ env, row: { entry: env.thisEntry, formulas: null }, locals: { values } });
    else
      value = builtInSummary(
        name,
        values.filter((v) => !(v instanceof ErrorValue)),
      );
    out[id] = toCell(value);
  }
  return out;
}
