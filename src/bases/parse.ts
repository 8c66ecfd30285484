/**
 * A `.base` file (or a ```base block) → a checked base definition. Legacy spellings are read
 * (top-level `display`, sort `column`, `group_by`); unknown view keys are kept as view options.
 * A malformed file is parse_failed with the line, column and key path of the problem.
 */
import { isScalar, LineCounter, type Node, parseDocument, Scalar } from "yaml";
import { IndxError } from "../core/errors.ts";

/** Where a value sits in the YAML: its keys and indexes from the top. */
export type KeyPath = readonly (string | number)[];

export type FilterNode =
  | { kind: "expression"; source: string; path: KeyPath }
  | { kind: "constant"; value: boolean }
  | { kind: "and" | "or" | "not"; items: FilterNode[] };

export interface ExpressionSource {
  source: string;
  path: KeyPath;
}

export type Direction = "ASC" | "DESC";

export interface SortKey {
  property: string;
  direction: Direction;
}

export interface BaseView {
  type: string;
  name: string;
  filters: FilterNode | null;
  /** Visible property ids, in order. */
  order: string[];
  sort: SortKey[];
  groupBy: SortKey | null;
  limit: number | null;
  /** Property id → built-in summary name or a key of the file's `summaries`. */
  summaries: Record<string, string>;
  /** Layout keys (image, cardSize, coordinates, …), kept as written. */
  options: Record<string, unknown>;
}

export interface BaseDefinition {
  filters: FilterNode | null;
  formulas: Map<string, ExpressionSource>;
  /** Property id → display name. */
  displayNames: Map<string, string>;
  summaries: Map<string, ExpressionSource>;
  views: BaseView[];
}

/** Bounds on one base (docs/decisions.md, "Bases input bounds"). */
export const BASE_LIMITS = { chars: 1_000_000, views: 100, formulas: 500, filterDepth: 32, filterItems: 1_000 } as const;

const VIEW_KEYS = new Set(["type", "name", "filters", "order", "sort", "groupBy", "group_by", "limit", "summaries"]);

/** The located problem inside a base, raised while checking it. */
export class BaseError extends Error {
  constructor(
    message: string,
    readonly path: KeyPath,
    readonly bound = false,
  ) {
    super(message);
  }
}

/** `views[0].filters.and[1]`: a key path as people read it. */
export function keyPathText(path: KeyPath): string {
  let out = "";
  for (const k of path) out += typeof k === "number" ? `[${k}]` : /^[A-Za-z_][\w]*$/.test(k) ? (out ? `.${k}` : k) : `[${JSON.stringify(k)}]`;
  return out;
}

/** How many times a base may use YAML aliases (weighted by what each expands to, as the yaml package counts). */
const MAX_ALIAS_COUNT = 100;

/** Parses the YAML text of a base. `source` names it in errors (a path, or "the base block"). */
export function parseBase(text: string, source: string): BaseDefinition {
  if (text.length > BASE_LIMITS.chars)
    throw new IndxError("validation_failed", `The base is larger than ${BASE_LIMITS.chars} characters.`, { limit: BASE_LIMITS.chars });
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const yamlError = doc.errors[0];
  if (yamlError) {
    const pos = lines.linePos(yamlError.pos[0]);
    throw new IndxError("parse_failed", `${source} is not valid YAML (line ${pos.line}, column ${pos.col}).`, {
      line: pos.line,
      column: pos.col,
      key_path: null,
      reason: yamlError.code,
    });
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    // The yaml package's guard against an alias bomb (a few lines that expand to millions of nodes).
    if (!(err instanceof ReferenceError)) throw err;
    throw new IndxError("validation_failed", `${source} expands its YAML aliases past ${MAX_ALIAS_COUNT} uses: a base needs no more.`, {
      reason: "yaml_aliases",
      limit: MAX_ALIAS_COUNT,
    });
  }
  try {
    return readBase(data);
  } catch (err) {
    if (!(err instanceof BaseError)) throw err;
    throw locatedError(source, err.message, err.path, locate(doc.getIn(err.path, true), lines), err.bound);
  }
}

/** The IndxError callers see for a problem at `path`: parse_failed, or validation_failed past a bound. */
export function locatedError(source: string, message: string, path: KeyPath, pos: { line: number; column: number } | null, bound = false): IndxError {
  const key = keyPathText(path);
  const place = pos ? ` (line ${pos.line}, column ${pos.column})` : "";
  return new IndxError(bound ? "validation_failed" : "parse_failed", `${source}: ${key ? `${key}: ` : ""}${message}${place}.`, {
    key_path: key || null,
    line: pos?.line ?? null,
    column: pos?.column ?? null,
  });
}

function locate(node: unknown, lines: LineCounter): { line: number; column: number } | null {
  const range = (node as Node | undefined)?.range;
  if (!range) return null;
  const pos = lines.linePos(range[0]);
  return { line: pos.line, column: pos.col };
}

type Plain = Record<string, unknown>;

const isPlainObject = (v: unknown): v is Plain => v !== null && typeof v === "object" && !Array.isArray(v);

function readBase(data: unknown): BaseDefinition {
  if (data === null || data === undefined) return { filters: null, formulas: new Map(), displayNames: new Map(), summaries: new Map(), views: [defaultView()] };
  if (!isPlainObject(data)) throw new BaseError("a base is a mapping of filters, formulas, properties, summaries and views", []);
  const formulas = expressionMap(data.formulas, ["formulas"], BASE_LIMITS.formulas);
  const summaries = expressionMap(data.summaries, ["summaries"], BASE_LIMITS.formulas);
  const displayNames = new Map<string, string>();
  if (data.display !== undefined) {
    // Before 1.9.2: `display: {file.name: Games}`.
    for (const [id, name] of Object.entries(mapping(data.display, ["display"]))) if (name !== null) displayNames.set(id, String(name));
  }
  if (data.properties !== undefined)
    for (const [id, config] of Object.entries(mapping(data.properties, ["properties"]))) {
      if (config === null) continue;
      const name = mapping(config, ["properties", id]).displayName;
      if (name !== undefined && name !== null) displayNames.set(id, String(name));
    }
  const rawViews = data.views ?? [];
  if (!Array.isArray(rawViews)) throw new BaseError("views must be a list", ["views"]);
  if (rawViews.length > BASE_LIMITS.views) throw new BaseError(`a base has at most ${BASE_LIMITS.views} views`, ["views"], true);
  const views = rawViews.map((v, i) => readView(v, i));
  return {
    filters: data.filters === undefined ? null : readFilter(data.filters, ["filters"], 0, { count: 0 }),
    formulas,
    displayNames,
    summaries,
    views: views.length ? views : [defaultView()],
  };
}

/** An empty base (or one without views) shows one table named "Table", as Obsidian does. */
const defaultView = (): BaseView => ({
  type: "table",
  name: "Table",
  filters: null,
  order: [],
  sort: [],
  groupBy: null,
  limit: null,
  summaries: {},
  options: {},
});

function mapping(v: unknown, path: KeyPath): Plain {
  if (v === null || v === undefined) return {};
  if (!isPlainObject(v)) throw new BaseError("must be a mapping", path);
  return v;
}

function expressionMap(v: unknown, path: KeyPath, max: number): Map<string, ExpressionSource> {
  const out = new Map<string, ExpressionSource>();
  const entries = Object.entries(mapping(v, path));
  if (entries.length > max) throw new BaseError(`at most ${max} entries`, path, true);
  for (const [name, source] of entries) {
    if (source === null || source === "") continue;
    if (typeof source !== "string" && typeof source !== "number" && typeof source !== "boolean")
      throw new BaseError("must be an expression (text)", [...path, name]);
    out.set(name, { source: String(source), path: [...path, name] });
  }
  return out;
}

function readFilter(v: unknown, path: KeyPath, depth: number, budget: { count: number }): FilterNode {
  if (depth > BASE_LIMITS.filterDepth) throw new BaseError(`filters nest deeper than ${BASE_LIMITS.filterDepth} levels`, path, true);
  if (++budget.count > BASE_LIMITS.filterItems) throw new BaseError(`more than ${BASE_LIMITS.filterItems} filter statements`, path, true);
  if (typeof v === "string") return { kind: "expression", source: v, path };
  if (typeof v === "boolean") return { kind: "constant", value: v };
  if (typeof v === "number") return { kind: "expression", source: String(v), path };
  if (!isPlainObject(v)) throw new BaseError("a filter is an expression or a mapping with one of and, or, not", path);
  const keys = Object.keys(v);
  const key = keys[0];
  if (keys.length !== 1 || (key !== "and" && key !== "or" && key !== "not"))
    throw new BaseError("a filter mapping has exactly one key: and, or or not", keys.length === 1 && key !== undefined ? [...path, key] : path);
  const list = v[key];
  if (list === null || list === undefined) return { kind: key, items: [] };
  const items = Array.isArray(list) ? list : [list];
  return { kind: key, items: items.map((item, i) => readFilter(item, Array.isArray(list) ? [...path, key, i] : [...path, key], depth + 1, budget)) };
}

function propertyIdAt(v: unknown, path: KeyPath): string {
  if (typeof v !== "string" || v === "") throw new BaseError("must be a property id such as note.status or file.name", path);
  return v;
}

function direction(v: unknown, path: KeyPath): Direction {
  if (v === undefined || v === null) return "ASC";
  const d = String(v).toUpperCase();
  if (d !== "ASC" && d !== "DESC") throw new BaseError("direction is ASC or DESC", path);
  return d;
}

function readSortKey(v: unknown, path: KeyPath): SortKey {
  const m = mapping(v, path);
  // `column` is the spelling of the early betas.
  const key = m.property !== undefined ? "property" : "column";
  return { property: propertyIdAt(m[key], [...path, key]), direction: direction(m.direction, [...path, "direction"]) };
}

function readView(v: unknown, i: number): BaseView {
  const path: KeyPath = ["views", i];
  const m = mapping(v, path);
  const type = m.type === undefined || m.type === null ? "table" : String(m.type);
  const name = m.name === undefined || m.name === null ? `${type[0]?.toUpperCase() ?? ""}${type.slice(1)}` : String(m.name);
  const order = m.order === undefined || m.order === null ? [] : m.order;
  if (!Array.isArray(order)) throw new BaseError("order must be a list of property ids", [...path, "order"]);
  const sort = m.sort === undefined || m.sort === null ? [] : m.sort;
  if (!Array.isArray(sort)) throw new BaseError("sort must be a list of {property, direction}", [...path, "sort"]);
  const groupKey = m.groupBy !== undefined ? "groupBy" : "group_by";
  const group = m[groupKey];
  const limit = m.limit;
  if (limit !== undefined && limit !== null && (typeof limit !== "number" || !Number.isInteger(limit) || limit < 0))
    throw new BaseError("limit must be a whole number, 0 or more", [...path, "limit"]);
  const summaries: Record<string, string> = {};
  for (const [id, name] of Object.entries(mapping(m.summaries, [...path, "summaries"]))) {
    if (typeof name !== "string") throw new BaseError("a summary is a name such as Average or a key of summaries", [...path, "summaries", id]);
    summaries[id] = name;
  }
  const options: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(m)) if (!VIEW_KEYS.has(k)) options[k] = value;
  return {
    type,
    name,
    filters: m.filters === undefined || m.filters === null ? null : readFilter(m.filters, [...path, "filters"], 0, { count: 0 }),
    order: order.map((id, j) => propertyIdAt(id, [...path, "order", j])),
    sort: sort.map((s, j) => readSortKey(s, [...path, "sort", j])),
    groupBy: group === undefined || group === null ? null : readSortKey(group, [...path, groupKey]),
    limit: typeof limit === "number" ? limit : null,
    summaries,
    options,
  };
}

/** Line and column of an expression's character `at`, when the scalar holding it sits on one line. */
export function expressionPosition(text: string, path: KeyPath, at: number): { line: number; column: number } | null {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  const node = doc.getIn(path, true);
  if (!isScalar(node) || !node.range) return locate(node, lines);
  const start = lines.linePos(node.range[0]);
  const quoted = node.type === Scalar.QUOTE_DOUBLE || node.type === Scalar.QUOTE_SINGLE;
  const raw = text.slice(node.range[0], node.range[1]);
  if (raw.includes("\n") || (node.type !== Scalar.PLAIN && !quoted)) return { line: start.line, column: start.col };
  return { line: start.line, column: start.col + (quoted ? 1 : 0) + at };
}
