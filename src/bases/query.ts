/**
 * Runs one view of a compiled base over the vault, in Obsidian's order (docs/decisions.md,
 * "Bases execution"): filter (base AND view), stable multi-key sort, limit, group, summaries.
 * Cells are made only for the rows of the page asked for.
 */
import { type Cell, toCell } from "./cells.ts";
import type { Entry, World } from "./entry.ts";
import { type Env, EVALUATING, type Row, type Scope } from "./expr/scope.ts";
import { ascending, sortsLast } from "./order.ts";
import type { BaseView, Direction } from "./parse.ts";
import { type CompiledBase, compileProperty } from "./plan.ts";
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

export interface RunOptions {
  world: World & { readonly candidates: readonly Entry[] };
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

function makeEnv(base: CompiledBase, opts: RunOptions): Env {
  const env: Env = {
    world: opts.world,
    thisEntry: opts.thisEntry,
    now: opts.now,
    formula(row: Row, name: string): Value {
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
  const view = base.definition.views[viewIndex]!;
  const env = makeEnv(base, opts);
  const scopeOf = (entry: Entry): Scope => ({ env, row: { entry, formulas: new Map() }, locals: null });
  const baseFilter = base.filter;
  const viewFilter = base.viewFilters[viewIndex] ?? null;
  let rows: Scope[] = [];
  for (const entry of opts.world.candidates) {
    const s = scopeOf(entry);
    if ((baseFilter === null || baseFilter(s)) && (viewFilter === null || viewFilter(s))) rows.push(s);
  }
  const matched = rows.length;
  rows = sortRows(rows, view);
  if (view.limit !== null) rows = rows.slice(0, view.limit);
  const columnIds = view.order.length ? view.order : ["file.name"];
  const columns = columnIds.map((id) => ({ id, name: columnName(base, id) }));
  const grouped = view.groupBy ? groupRows(rows, view.groupBy.property, view.groupBy.direction) : null;
  const ordered = grouped ? grouped.flatMap((g) => g.rows) : rows;
  const groupIndex = new Map<Scope, number>();
  grouped?.forEach((g, i) => {
    for (const r of g.rows) groupIndex.set(r, i);
  });
  const cellsOf = columnIds.map((id) => [id, compileProperty(id)] as const);
  const page = ordered.slice(opts.offset, opts.offset + opts.pageSize).map((s) => ({
    path: s.row.entry.path,
    group: grouped ? groupIndex.get(s)! : null,
    cells: Object.fromEntries(cellsOf.map(([id, get]) => [id, toCell(get(s))])),
  }));
  const summarize = (subset: Scope[]) => summaries(base, view, subset, env);
  return {
    columns,
    matched,
    total: ordered.length,
    rows: page,
    groups: grouped?.map((g) => ({ key: toCell(g.key), count: g.rows.length, summaries: summarize(g.rows) })) ?? null,
    summaries: summarize(ordered),
  };
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
  const getters = view.sort.map((k) => ({ get: compileProperty(k.property), direction: k.direction }));
  const keyed = rows.map((s) => ({ s, keys: getters.map((g) => g.get(s)) }));
  // Array.prototype.sort is stable, as Obsidian's sort is.
  keyed.sort((a, b) => {
    for (let i = 0; i < getters.length; i++) {
      const c = compareKeys(a.keys[i]!, b.keys[i]!, getters[i]!.direction);
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
    const key = get(s);
    const id = JSON.stringify(toCell(sortsLast(key) ? null : key));
    let group = byKey.get(id);
    if (!group) byKey.set(id, (group = { key: sortsLast(key) ? null : key, rows: [] }));
    group.rows.push(s);
  }
  return [...byKey.values()].sort((a, b) => compareKeys(a.key, b.key, direction));
}

function summaries(base: CompiledBase, view: BaseView, rows: Scope[], env: Env): Record<string, Cell> {
  const out: Record<string, Cell> = {};
  for (const [id, name] of Object.entries(view.summaries)) {
    const get = compileProperty(id);
    const values = rows.map(get);
    const custom = base.summaries.get(name);
    let value: Value;
    if (custom) value = custom({ env, row: { entry: env.thisEntry, formulas: new Map() }, locals: { values } });
    else
      value = builtInSummary(
        name,
        values.filter((v) => !(v instanceof ErrorValue)),
      );
    out[id] = toCell(value);
  }
  return out;
}
