import { IndxError } from "../../core/errors.ts";
import { ExpressionError } from "./errors.ts";
import { type Token, tokenize } from "./lexer.ts";
import { EXPRESSION_LIMITS } from "./limits.ts";

export type BinaryOp = "||" | "&&" | "==" | "!=" | "<" | "<=" | ">" | ">=" | "+" | "-" | "*" | "/" | "%";

export type Node =
  | { kind: "literal"; value: string | number | boolean | null; at: number }
  | { kind: "regex"; source: string; flags: string; at: number }
  | { kind: "ident"; name: string; at: number }
  | { kind: "list"; items: Node[]; at: number }
  | { kind: "object"; entries: [string, Node][]; at: number }
  | { kind: "unary"; op: "!" | "-"; arg: Node; at: number }
  | { kind: "binary"; op: BinaryOp; left: Node; right: Node; at: number }
  | { kind: "member"; object: Node; name: string; at: number }
  | { kind: "index"; object: Node; index: Node; at: number }
  | { kind: "call"; callee: Node; args: Node[]; at: number };

/** JavaScript precedence, as Obsidian's "Bases functions follow JavaScript behavior" implies. */
const BINARY_PRECEDENCE: Record<string, number> = {
  "||": 1,
  "&&": 2,
  "==": 3,
  "!=": 3,
  "<": 4,
  "<=": 4,
  ">": 4,
  ">=": 4,
  "+": 5,
  "-": 5,
  "*": 6,
  "/": 6,
  "%": 6,
};

const UNARY_PRECEDENCE = 7;

/** Parses one expression into its syntax tree; throws ExpressionError with the offset of the problem. */
export function parseExpression(src: string): Node {
  if (src.length > EXPRESSION_LIMITS.chars)
    throw new ExpressionError(`The expression is longer than ${EXPRESSION_LIMITS.chars} characters`, EXPRESSION_LIMITS.chars, true);
  if (src.trim() === "") throw new ExpressionError("The expression is empty", 0);
  return new Parser(tokenize(src)).parseAll();
}

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parseAll(): Node {
    const node = this.expression(0);
    const next = this.peek();
    if (next.kind !== "eof") throw new ExpressionError(`Unexpected '${next.text}'`, next.at);
    return node;
  }

  /** The token at the cursor; past the end, the final eof token again. */
  private peek(): Token {
    const t = this.tokens[this.pos] ?? this.tokens.at(-1);
    if (t === undefined) throw new IndxError("internal", "The lexer returned no tokens, not even eof");
    return t;
  }

  private next(): Token {
    const t = this.peek();
    this.pos++;
    return t;
  }

  private isOp(text: string): boolean {
    const t = this.peek();
    return t.kind === "op" && t.text === text;
  }

  private expect(text: string): Token {
    const t = this.next();
    if (t.kind !== "op" || t.text !== text) throw new ExpressionError(t.kind === "eof" ? `Expected '${text}' before the end` : `Expected '${text}'`, t.at);
    return t;
  }

  private expression(minPrecedence: number): Node {
    if (++this.depth > EXPRESSION_LIMITS.depth)
      throw new ExpressionError(`The expression nests deeper than ${EXPRESSION_LIMITS.depth} levels`, this.peek().at, true);
    let left = this.unary();
    for (;;) {
      const t = this.peek();
      const precedence = t.kind === "op" ? BINARY_PRECEDENCE[t.text] : undefined;
      if (precedence === undefined || precedence <= minPrecedence) break;
      this.next();
      const right = this.expression(precedence);
      left = { kind: "binary", op: t.text as BinaryOp, left, right, at: t.at };
    }
    this.depth--;
    return left;
  }

  private unary(): Node {
    const t = this.peek();
    if (t.kind === "op" && (t.text === "!" || t.text === "-")) {
      this.next();
      const arg = this.expression(UNARY_PRECEDENCE);
      return { kind: "unary", op: t.text, arg, at: t.at };
    }
    if (t.kind === "op" && t.text === "+") {
      this.next();
      return this.expression(UNARY_PRECEDENCE);
    }
    return this.postfix(this.primary());
  }

  private postfix(start: Node): Node {
    let node = start;
    for (;;) {
      const t = this.peek();
      if (t.kind !== "op") return node;
      if (t.text === ".") {
        this.next();
        const name = this.next();
        if (name.kind !== "ident") throw new ExpressionError("Expected a name after '.'", name.at);
        node = { kind: "member", object: node, name: name.text, at: name.at };
      } else if (t.text === "[") {
        this.next();
        const index = this.expression(0);
        this.expect("]");
        node = { kind: "index", object: node, index, at: t.at };
      } else if (t.text === "(") {
        this.next();
        node = { kind: "call", callee: node, args: this.list(")"), at: t.at };
      } else return node;
    }
  }

  private list(close: string): Node[] {
    const items: Node[] = [];
    while (!this.isOp(close)) {
      items.push(this.expression(0));
      if (!this.isOp(close)) this.expect(",");
    }
    this.next();
    return items;
  }

  private primary(): Node {
    const t = this.next();
    switch (t.kind) {
      case "number":
        return { kind: "literal", value: t.number ?? Number(t.text), at: t.at };
      case "string":
        return { kind: "literal", value: t.text, at: t.at };
      case "regex":
        return { kind: "regex", source: t.text, flags: t.flags ?? "", at: t.at };
      case "ident":
        if (t.text === "true" || t.text === "false") return { kind: "literal", value: t.text === "true", at: t.at };
        if (t.text === "null") return { kind: "literal", value: null, at: t.at };
        return { kind: "ident", name: t.text, at: t.at };
      case "eof":
        throw new ExpressionError("The expression ends too early", t.at);
    }
    if (t.text === "(") {
      const inner = this.expression(0);
      this.expect(")");
      return inner;
    }
    if (t.text === "[") return { kind: "list", items: this.list("]"), at: t.at };
    if (t.text === "{") return this.objectLiteral(t.at);
    throw new ExpressionError(`Unexpected '${t.text}'`, t.at);
  }

  private objectLiteral(at: number): Node {
    const entries: [string, Node][] = [];
    while (!this.isOp("}")) {
      const key = this.next();
      if (key.kind !== "string" && key.kind !== "ident" && key.kind !== "number") throw new ExpressionError("Expected a key", key.at);
      this.expect(":");
      entries.push([key.text, this.expression(0)]);
      if (!this.isOp("}")) this.expect(",");
    }
    this.next();
    return { kind: "object", entries, at };
  }
}
