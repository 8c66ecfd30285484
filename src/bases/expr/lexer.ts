import { IndxError } from "../../core/errors.ts";
import { unsupportedRegex } from "../regex.ts";
import { ExpressionError } from "./errors.ts";

export type TokenKind = "number" | "string" | "ident" | "op" | "regex" | "eof";

export interface Token {
  kind: TokenKind;
  /** The number, the decoded string, the identifier, the operator, or the regex source. */
  text: string;
  /** Regex flags. */
  flags?: string;
  number?: number;
  /** Offset of the token in the expression. */
  at: number;
}

const OPERATORS = ["==", "!=", ">=", "<=", "&&", "||", "+", "-", "*", "/", "%", ">", "<", "!", "(", ")", "[", "]", "{", "}", ",", ".", ":"];

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", v: "\v", "0": "\0" };

const isIdentStart = (c: string) => /[\p{L}_$]/u.test(c);
const isIdentPart = (c: string) => /[\p{L}\p{N}_$]/u.test(c);
const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

/** Splits an expression into tokens. A `/` starts a regex literal where an operand is expected. */
export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const operandEnded = () => {
    const last = tokens[tokens.length - 1];
    if (!last) return false;
    if (last.kind === "op") return last.text === ")" || last.text === "]" || last.text === "}";
    return true;
  };
  while (i < src.length) {
    const c = src.charAt(i);
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i;
    if (isDigit(c) || (c === "." && isDigit(src[i + 1]))) {
      const m = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(src.slice(i));
      if (!m) throw new IndxError("internal", "A digit that starts no number literal");
      tokens.push({ kind: "number", text: m[0], number: Number(m[0]), at });
      i += m[0].length;
      continue;
    }
    if (c === '"' || c === "'") {
      const [text, end] = readString(src, i);
      tokens.push({ kind: "string", text, at });
      i = end;
      continue;
    }
    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < src.length && isIdentPart(src.charAt(j))) j++;
      tokens.push({ kind: "ident", text: src.slice(i, j), at });
      i = j;
      continue;
    }
    if (c === "/" && !operandEnded()) {
      const [source, flags, end] = readRegex(src, i);
      tokens.push({ kind: "regex", text: source, flags, at });
      i = end;
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (!op) throw new ExpressionError(`Unexpected character '${c}'`, at);
    tokens.push({ kind: "op", text: op, at });
    i += op.length;
  }
  tokens.push({ kind: "eof", text: "", at: src.length });
  return tokens;
}

function readString(src: string, start: number): [string, number] {
  const quote = src[start];
  let out = "";
  let i = start + 1;
  while (i < src.length) {
    const c = src.charAt(i);
    if (c === quote) return [out, i + 1];
    if (c === "\\") {
      const next = src[i + 1];
      if (next === undefined) break;
      if (next === "u" && /^[0-9a-fA-F]{4}$/.test(src.slice(i + 2, i + 6))) {
        out += String.fromCharCode(Number.parseInt(src.slice(i + 2, i + 6), 16));
        i += 6;
        continue;
      }
      out += ESCAPES[next] ?? next;
      i += 2;
      continue;
    }
    out += c;
    i++;
  }
  throw new ExpressionError("Unterminated string", start);
}

function readRegex(src: string, start: number): [string, string, number] {
  let i = start + 1;
  let inClass = false;
  while (i < src.length) {
    const c = src.charAt(i);
    if (c === "\\") i += 2;
    else {
      if (c === "[") inClass = true;
      else if (c === "]") inClass = false;
      else if (c === "/" && !inClass) break;
      i++;
    }
  }
  if (i >= src.length) throw new ExpressionError("Unterminated regular expression", start);
  const source = src.slice(start + 1, i);
  let j = i + 1;
  while (j < src.length && /[a-z]/.test(src.charAt(j))) j++;
  const flags = src.slice(i + 1, j);
  try {
    new RegExp(source, flags);
  } catch {
    throw new ExpressionError("Invalid regular expression", start);
  }
  const unsupported = unsupportedRegex(source, flags);
  if (unsupported) throw new ExpressionError(`Unsupported regular expression: ${unsupported}`, start);
  return [source, flags, j];
}
