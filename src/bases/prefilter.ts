/**
 * What the index can answer of a filter before any row runs (docs/decisions.md, "Bases
 * prefiltering"). Each filter gets two bounds over the files: `may` holds every file it could
 * keep, `must` only files it surely keeps, so a negation swaps them and stays sound. The
 * candidates are the files of `may`; the filter itself still runs on each of them and has the
 * last word, so a bound that is too wide costs time, never a wrong row.
 */
import type { CandidateCondition, Comparison, RowTest } from "../index/storage/queries/candidates.ts";
import { parseDate } from "./dates.ts";
import { compileSyntax } from "./expr/compile.ts";
import type { BinaryOp, Node } from "./expr/parser.ts";
import type { Env } from "./expr/scope.ts";
import type { FilterNode } from "./parse.ts";
import { type DeclaredTypes, declaredType, type PropertyType } from "./properties.ts";
import { DateValue, DurationValue, isList, isTruthy, type Value } from "./values.ts";

interface Bounds {
  may: CandidateCondition;
  must: CandidateCondition;
}

/** What a plan needs to know of the query: its constants (today(), this) and the vault's property types. */
export interface PlanContext {
  env: Env;
  declared: DeclaredTypes;
}

/** A filter's bounds, computed when the query's constants are known. */
export type FilterPlan = (ctx: PlanContext) => Bounds;

const ALL: CandidateCondition = { kind: "all" };
const NONE: CandidateCondition = { kind: "none" };
const UNKNOWN: Bounds = { may: ALL, must: NONE };
const exact = (c: CandidateCondition): Bounds => ({ may: c, must: c });

function and(items: CandidateCondition[]): CandidateCondition {
  if (items.some((i) => i.kind === "none")) return NONE;
  const kept = items.flatMap((i) => (i.kind === "all" ? [] : i.kind === "and" ? i.items : [i]));
  if (kept.length > 1) return { kind: "and", items: kept };
  return kept[0] ?? ALL;
}

function or(items: CandidateCondition[]): CandidateCondition {
  if (items.some((i) => i.kind === "all")) return ALL;
  const kept = items.flatMap((i) => (i.kind === "none" ? [] : i.kind === "or" ? i.items : [i]));
  if (kept.length > 1) return { kind: "or", items: kept };
  return kept[0] ?? NONE;
}

function not(c: CandidateCondition): CandidateCondition {
  if (c.kind === "all") return NONE;
  if (c.kind === "none") return ALL;
  return c.kind === "not" ? c.item : { kind: "not", item: c };
}

const allOf =
  (plans: FilterPlan[]): FilterPlan =>
  (ctx) => {
    const bounds = plans.map((p) => p(ctx));
    return { may: and(bounds.map((b) => b.may)), must: and(bounds.map((b) => b.must)) };
  };

const anyOf =
  (plans: FilterPlan[]): FilterPlan =>
  (ctx) => {
    const bounds = plans.map((p) => p(ctx));
    return { may: or(bounds.map((b) => b.may)), must: or(bounds.map((b) => b.must)) };
  };

const negation =
  (plan: FilterPlan): FilterPlan =>
  (ctx) => {
    const b = plan(ctx);
    return { may: not(b.must), must: not(b.may) };
  };

/** The files a query's filters (all of them must hold) could keep. */
export function candidateCondition(plans: readonly FilterPlan[], ctx: PlanContext): CandidateCondition {
  return and(plans.map((p) => p(ctx).may));
}

/** An expression statement of a filter tree. */
export type FilterStatement = Extract<FilterNode, { kind: "expression" }>;

/** The plan of a filter tree; `syntaxOf` gives the parsed expression of each statement. */
export function planFilter(node: FilterNode, syntaxOf: (statement: FilterStatement) => Node): FilterPlan {
  switch (node.kind) {
    case "constant":
      return () => exact(node.value ? ALL : NONE);
    case "expression":
      return planExpression(syntaxOf(node));
    case "and":
      return allOf(node.items.map((i) => planFilter(i, syntaxOf)));
    case "or":
      return anyOf(node.items.map((i) => planFilter(i, syntaxOf)));
    case "not":
      return negation(anyOf(node.items.map((i) => planFilter(i, syntaxOf))));
  }
}

/** The plan of one expression taken as a filter (its truthiness). */
export function planExpression(node: Node): FilterPlan {
  if (isConstant(node)) {
    const run = compileSyntax(node);
    return (ctx) => exact(isTruthy(constantValue(run, ctx)) ? ALL : NONE);
  }
  if (node.kind === "unary" && node.op === "!") return negation(planExpression(node.arg));
  if (node.kind === "binary") {
    if (node.op === "&&") return allOf([planExpression(node.left), planExpression(node.right)]);
    if (node.op === "||") return anyOf([planExpression(node.left), planExpression(node.right)]);
    const op = COMPARISONS[node.op];
    if (op) return planComparison(node.left, op, node.right) ?? planComparison(node.right, FLIPPED[op], node.left) ?? (() => UNKNOWN);
  }
  if (node.kind === "call") return planFileMethod(node) ?? (() => UNKNOWN);
  const target = targetOf(node);
  // A property is truthy only when it has a value.
  if (target?.kind === "property") return () => ({ may: { kind: "property", key: target.key, tests: null }, must: NONE });
  return () => UNKNOWN;
}

type Op = Comparison | "!=";

const COMPARISONS: Partial<Record<BinaryOp, Op>> = { "==": "=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=" };
const FLIPPED: Record<Op, Op> = { "=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<=" };

/** What a comparison's left side reads: a note property (key lowercased) or a field of the file. */
type Target = { kind: "property"; key: string } | { kind: "file"; field: string };

const RESERVED = new Set(["file", "this", "note", "formula"]);

function targetOf(node: Node): Target | null {
  if (node.kind === "ident") return RESERVED.has(node.name) ? null : { kind: "property", key: node.name.toLowerCase() };
  const name =
    node.kind === "member"
      ? node.name
      : node.kind === "index" && node.index.kind === "literal" && typeof node.index.value === "string"
        ? node.index.value
        : null;
  if (name === null || (node.kind !== "member" && node.kind !== "index") || node.object.kind !== "ident") return null;
  if (node.object.name === "note") return { kind: "property", key: name.toLowerCase() };
  if (node.object.name === "file") return { kind: "file", field: name };
  return null;
}

function planComparison(left: Node, op: Op, right: Node): FilterPlan | null {
  const target = targetOf(left);
  if (!target || !isConstant(right)) return null;
  const run = compileSyntax(right);
  const bounds =
    target.kind === "property"
      ? (c: Value, ctx: PlanContext) => propertyBounds(target.key, op === "!=" ? "=" : op, c, declaredType(target.key, ctx.declared))
      : (c: Value) => fileFieldBounds(target.field, op === "!=" ? "=" : op, c);
  return (ctx) => {
    const b = bounds(constantValue(run, ctx), ctx);
    return op === "!=" ? { may: not(b.must), must: not(b.may) } : b;
  };
}

const LIST_TYPES = new Set<PropertyType | null>(["multitext", "tags", "aliases"]);

/**
 * `property op c` over the index's columns. The typed value comes from the raw value and the
 * property's type (properties.ts typedValue), and the operators' rules (operators.ts) say which
 * kinds of value can compare true with `c`: the tests cover each such kind.
 */
function propertyBounds(key: string, op: Comparison, c: Value, declared: PropertyType | null): Bounds {
  const may = (tests: RowTest[] | null): Bounds => ({ may: { kind: "property", key, tests }, must: NONE });
  // Every value of a list type is a list (or null), which equals or orders with no other kind.
  if (LIST_TYPES.has(declared) && c !== null && !isList(c)) return exact(NONE);
  if (typeof c === "number" || c instanceof DurationValue) {
    const n = typeof c === "number" ? c : c.totalMs;
    if (Number.isNaN(n)) return UNKNOWN;
    // A declared number reads numeric strings as numbers.
    return may([{ column: "num", op, value: n }, ...(declared === "number" ? [STRING] : [])]);
  }
  if (typeof c === "boolean") {
    // A declared checkbox reads "true" and "false" as booleans.
    const checkbox = declared === "checkbox" ? [STRING] : [];
    if (op !== "=") return may([{ column: "bool", value: true }, { column: "bool", value: false }, ...checkbox]);
    return may([{ column: "bool", value: c }, ...checkbox]);
  }
  if (typeof c === "string") return may(stringTests(op, c));
  if (c instanceof DateValue) return may(dayTests(op, c));
  // A missing property equals null, and nothing orders with null; other kinds need a value.
  if (c === null) return op === "=" ? UNKNOWN : exact(NONE);
  return may(null);
}

const STRING: RowTest = { column: "string" };

/** A string compares with text (JavaScript's order), with dates when it reads as one, and equals links. */
function stringTests(op: Comparison, s: string): RowTest[] {
  const date = parseDate(s);
  const dates = date ? dayTests(op, date) : [];
  // A link equals the text of its target, which only resolving it tells.
  if (op === "=") return [{ column: "text", op, value: s }, { column: "link" }, ...dates];
  // SQLite orders text by UTF-8 bytes, JavaScript by UTF-16 units: the same order against ASCII.
  return [isAscii(s) ? { column: "text", op, value: s } : STRING, ...dates];
}

/**
 * Days a date value can be written on to compare so with `d`. A value without a zone is on its
 * written day; one with a zone may fall a day either side of it in local time.
 */
function dayTests(op: Comparison, d: DateValue): RowTest[] {
  const from = localDay(d.ms, -1);
  const to = localDay(d.ms, 1);
  if (from === null || to === null) return [STRING];
  if (op === "=") return [{ column: "days", from, to }];
  return op === ">" || op === ">=" ? [{ column: "day", op: ">=", value: from }] : [{ column: "day", op: "<=", value: to }];
}

function localDay(ms: number, shift: number): string | null {
  const d = new Date(ms);
  const day = new Date(d.getFullYear(), d.getMonth(), d.getDate() + shift);
  const year = day.getFullYear();
  if (!(year >= 1000 && year <= 9999)) return null;
  return `${year}-${String(day.getMonth() + 1).padStart(2, "0")}-${String(day.getDate()).padStart(2, "0")}`;
}

const isAscii = (s: string) => {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
};

function fileFieldBounds(field: string, op: Comparison, c: Value): Bounds {
  if (field === "size") return typeof c === "number" && !Number.isNaN(c) ? exact({ kind: "size", op, value: c }) : UNKNOWN;
  if (typeof c !== "string" || op !== "=") return UNKNOWN;
  switch (field) {
    case "path":
      return exact({ kind: "path", op: "=", value: c });
    case "ext":
      return { may: c === "" ? ALL : { kind: "path", op: "suffix", value: `.${c}` }, must: NONE };
    case "name":
      return {
        may: or([
          { kind: "path", op: "=", value: c },
          { kind: "path", op: "suffix", value: `/${c}` },
        ]),
        must: NONE,
      };
    case "folder":
      return { may: c === "/" || c === "" ? ALL : { kind: "path", op: "prefix", value: `${c}/` }, must: NONE };
  }
  return UNKNOWN;
}

/** file.hasTag(…), file.inFolder(…) and file.hasProperty(…) with constant arguments: the index answers them exactly. */
function planFileMethod(node: Extract<Node, { kind: "call" }>): FilterPlan | null {
  const callee = node.callee;
  if (callee.kind !== "member" || callee.object.kind !== "ident" || callee.object.name !== "file") return null;
  if (!node.args.every(isConstant)) return null;
  const args = node.args.map(compileSyntax);
  const bounds = FILE_METHODS[callee.name];
  if (!bounds) return null;
  return (ctx) => exact(bounds(args.map((a) => constantValue(a, ctx))));
}

const FILE_METHODS: Record<string, (args: Value[]) => CandidateCondition> = {
  hasTag: (args) => {
    const tags = args.flatMap((t) => (typeof t === "string" ? [t.replace(/^#/, "").toLowerCase()] : []));
    return tags.length ? { kind: "tag", tags } : NONE;
  },
  inFolder: ([folder]) => {
    if (typeof folder !== "string") return NONE;
    const f = folder.replace(/^\/+|\/+$/g, "");
    return f === "" ? ALL : { kind: "path", op: "prefix", value: `${f}/` };
  },
  hasProperty: ([name]) => (typeof name === "string" ? { kind: "hasKey", key: name } : NONE),
};

/** Globals whose value is the same for every row of a query. */
const CONSTANT_GLOBALS = new Set(["date", "duration", "now", "today", "number", "max", "min"]);

/** Whether an expression reads nothing of the row: literals, `this`, and what is computed from them. */
function isConstant(node: Node): boolean {
  switch (node.kind) {
    case "literal":
    case "regex":
      return true;
    case "ident":
      return node.name === "this";
    case "list":
      return node.items.every(isConstant);
    case "object":
      return node.entries.every(([, v]) => isConstant(v));
    case "unary":
      return isConstant(node.arg);
    case "binary":
      return isConstant(node.left) && isConstant(node.right);
    case "member":
      return isConstant(node.object);
    case "index":
      return isConstant(node.object) && isConstant(node.index);
    case "call": {
      const callee = node.callee;
      const callable = callee.kind === "ident" ? CONSTANT_GLOBALS.has(callee.name) : callee.kind === "member" && isConstant(callee.object);
      return callable && node.args.every(isConstant);
    }
  }
}

/** A constant's value: it reads no row, so `this` stands in for one. */
function constantValue(run: ReturnType<typeof compileSyntax>, ctx: PlanContext): Value {
  return run({ env: ctx.env, row: { entry: ctx.env.thisEntry, formulas: null }, locals: null });
}
