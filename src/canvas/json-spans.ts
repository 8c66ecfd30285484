/**
 * Where each string value of a JSON text sits, so a canvas edit can replace one value and leave
 * every other byte (indentation, key order, number spelling, escapes) exactly as the file had it.
 */
import { IndxError } from "../core/errors.ts";

export interface JsonStringSpan {
  /** Keys and array indexes from the root, e.g. ["nodes", 3, "file"]. */
  path: (string | number)[];
  /** [start, end) of the string literal, quotes included. */
  start: number;
  end: number;
  value: string;
}

/**
 * Deeper than any canvas needs (nodes sit at depth 3); a bound keeps a hostile file from costing
 * seconds or the stack (decisions.md, "Bounded inputs").
 */
const MAX_DEPTH = 64;

/** Every string value (object keys excluded) of a JSON document, in text order. */
export function jsonStringSpans(text: string): JsonStringSpan[] {
  const out: JsonStringSpan[] = [];
  // One shared stack of keys and indexes; a span copies it only when it records a string.
  const path: (string | number)[] = [];
  let i = 0;
  const fail = (): never => {
    throw new IndxError("parse_failed", "The file is not valid JSON.", { offset: i });
  };
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text.charAt(i))) i++;
  };
  const str = (): { start: number; end: number; value: string } => {
    const start = i;
    if (text[i] !== '"') fail();
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    if (i >= text.length) fail();
    i++;
    return { start, end: i, value: JSON.parse(text.slice(start, i)) as string };
  };
  const nested = (step: string | number): void => {
    if (path.length >= MAX_DEPTH) throw new IndxError("parse_failed", `The JSON nests deeper than ${MAX_DEPTH} levels.`, { offset: i });
    path.push(step);
    value();
    path.pop();
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '"') {
      out.push({ path: [...path], ...str() });
    } else if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        ws();
        const key = str().value;
        ws();
        if (text[i++] !== ":") fail();
        nested(key);
        ws();
        const d = text[i++];
        if (d === "}") return;
        if (d !== ",") fail();
      }
    } else if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        nested(n);
        ws();
        const d = text[i++];
        if (d === "]") return;
        if (d !== ",") fail();
      }
    } else {
      // number, true, false, null
      const m = /^(?:-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
      if (!m) return fail();
      i += m[0].length;
    }
  };
  value();
  return out;
}
