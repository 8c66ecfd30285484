/**
 * Turns a syntax tree into a tree of closures, so a filter or formula is parsed and resolved once
 * and then runs per row with no tree walking or name lookups left but the property ones.
 */
import { callMethod, fieldOf, indexOf, METHOD_NAMES, NO_METHOD, own, propertyOf } from "../functions/dispatch.ts";
import { FILE_FIELDS } from "../functions/file.ts";
import { GLOBALS } from "../functions/global.ts";
import { ErrorValue, error, FileValue, isTruthy, ObjectValue, ThisValue, typeOf, type Value } from "../values.ts";
import { ExpressionError } from "./errors.ts";
import { applyBinary, negate } from "./operators.ts";
import { type Node, parseExpression } from "./parser.ts";
import type { Compiled, Scope } from "./scope.ts";

/** Names that mean a local (value, index, acc, values) when one is bound, and a note property otherwise. */
const LOCAL_NAMES = new Set(["value", "index", "acc", "values"]);

export interface CompiledExpression {
  run: Compiled;
  /** The formulas it refers to (formula.x), for cycle detection. */
  formulas: ReadonlySet<string>;
  /** The syntax tree, for what the index can answer before any row runs (prefilter.ts). */
  syntax: Node;
}

export function compileExpression(src: string): CompiledExpression {
  const formulas = new Set<string>();
  const syntax = parseExpression(src);
  return { run: compileNode(syntax, formulas), formulas, syntax };
}

/** One part of a syntax tree as a closure. */
export function compileSyntax(node: Node): Compiled {
  return compileNode(node, new Set());
}

function compileNode(node: Node, formulas: Set<string>): Compiled {
  const sub = (n: Node) => compileNode(n, formulas);
  switch (node.kind) {
    case "literal": {
      const v = node.value;
      return () => v;
    }
    case "regex": {
      const re = new RegExp(node.source, node.flags);
      return () => re;
    }
    case "ident":
      return compileIdent(node.name, node.at);
    case "list": {
      const items = node.items.map(sub);
      return (s) => items.map((item) => item(s));
    }
    case "object": {
      const entries = node.entries.map(([k, v]) => [k, sub(v)] as const);
      return (s) => new ObjectValue(Object.fromEntries(entries.map(([k, v]) => [k, v(s)])));
    }
    case "unary": {
      const arg = sub(node.arg);
      return node.op === "!" ? (s) => !isTruthy(arg(s)) : (s) => negate(arg(s));
    }
    case "binary": {
      const left = sub(node.left);
      const right = sub(node.right);
      if (node.op === "&&") return (s) => (isTruthy(left(s)) ? right(s) : left(s));
      if (node.op === "||") return (s) => (isTruthy(left(s)) ? left(s) : right(s));
      const op = node.op;
      // A concatenation is paid for and capped like a call's result (src/bases/budget.ts).
      if (op === "+") return (s) => s.env.budget.made(applyBinary(op, left(s), right(s)));
      return (s) => applyBinary(op, left(s), right(s));
    }
    case "member":
      return compileMember(node.object, node.name, formulas);
    case "index": {
      if (node.index.kind === "literal" && typeof node.index.value === "string") return compileMember(node.object, node.index.value, formulas);
      const object = sub(node.object);
      const index = sub(node.index);
      return (s) => indexOf(object(s), index(s), s);
    }
    case "call":
      return compileCall(node, formulas);
  }
}

function compileIdent(name: string, at: number): Compiled {
  switch (name) {
    case "file":
      return (s) => new FileValue(s.row.entry);
    case "this":
      return (s) => new ThisValue(s.env.thisEntry);
    case "note":
      return (s) => new ObjectValue(s.row.entry.properties);
    case "formula":
      throw new ExpressionError("'formula' needs a name: formula.name or formula[\"name\"]", at);
  }
  if (LOCAL_NAMES.has(name)) return (s) => (s.locals && Object.hasOwn(s.locals, name) ? (s.locals[name] ?? null) : propertyOf(s.row.entry, name));
  return (s) => propertyOf(s.row.entry, name);
}

function compileMember(objectNode: Node, name: string, formulas: Set<string>): Compiled {
  if (objectNode.kind === "ident" && objectNode.name === "note") return (s) => propertyOf(s.row.entry, name);
  if (objectNode.kind === "ident" && objectNode.name === "formula") {
    formulas.add(name);
    return (s) => s.env.formula(s.row, name);
  }
  if (objectNode.kind === "ident" && objectNode.name === "file") {
    // file.x is resolved here once, not looked up per row.
    const field = own(FILE_FIELDS, name);
    return field ? (s) => field(s.row.entry, s) : () => null;
  }
  const object = compileNode(objectNode, formulas);
  return (s) => fieldOf(object(s), name, s);
}

function compileCall(node: Extract<Node, { kind: "call" }>, formulas: Set<string>): Compiled {
  const args = node.args.map((a) => compileNode(a, formulas));
  const callee = node.callee;
  if (callee.kind === "ident") {
    const def = own(GLOBALS, callee.name);
    if (!def) throw new ExpressionError(`Unknown function '${callee.name}'`, callee.at);
    checkArity(callee.name, def.arity, args.length, callee.at);
    if ("lazy" in def) return (s) => s.env.budget.made(def.call(null, args, s));
    return (s) => {
      const values = args.map((a) => a(s));
      const failed = values.find((v) => v instanceof ErrorValue);
      return failed ?? s.env.budget.made(def.call(null, values, s));
    };
  }
  if (callee.kind !== "member") throw new ExpressionError("Only functions and methods can be called", node.at);
  const name = callee.name;
  if (!METHOD_NAMES.has(name)) throw new ExpressionError(`Unknown method '${name}'`, callee.at);
  const receiver = compileNode(callee.object, formulas);
  return (s) => methodCall(receiver(s), name, args, s);
}

function checkArity(name: string, [min, max]: readonly [number, number], count: number, at: number): void {
  if (count < min || count > max) {
    const expected = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
    throw new ExpressionError(`${name}() takes ${expected} argument${expected === "1" ? "" : "s"}, not ${count}`, at);
  }
}

function methodCall(self: Value, name: string, args: readonly Compiled[], s: Scope): Value {
  if (self instanceof ErrorValue) return self;
  const result = callMethod(self, name, args, s);
  if (result !== NO_METHOD) return result;
  return self === null ? null : error(`A ${typeOf(self)} has no method ${name}()`);
}
