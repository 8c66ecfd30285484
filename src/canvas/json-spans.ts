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

/** Every string value (object keys excluded) of a JSON document, in text order. */
export function jsonStringSpans(text: string): JsonStringSpan[] {
  const out: JsonStringSpan[] = [];
  let i = 0;
  const fail = (): never => {
    throw new IndxError("parse_failed", "The file is not valid JSON.", { offset: i });
  };
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
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
  const value = (path: (string | number)[]): void => {
    ws();
    const c = text[i];
    if (c === '"') {
      out.push({ path, ...str() });
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
        value([...path, key]);
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
        value([...path, n]);
        ws();
        const d = text[i++];
        if (d === "]") return;
        if (d !== ",") fail();
      }
    } else {
      // number, true, false, null
      const m = /^(?:-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
      if (!m) fail();
      i += m![0].length;
    }
  };
  value([]);
  return out;
}
