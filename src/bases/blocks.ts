import { fenceOpenAt, isFenceCloseAt } from "../markdown/fences.ts";

export interface BaseBlock {
  /** The YAML between the fences. */
  yaml: string;
  /** 1-based line of the first YAML line in the note. */
  line: number;
}

/** The ```base code blocks of a note, in order. */
export function baseBlocks(text: string): BaseBlock[] {
  const blocks: BaseBlock[] = [];
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  const lineEnd = (n: number) => {
    const next = starts[n + 1];
    return next === undefined ? text.length : next - 1;
  };
  /** Where line n's text starts, after its indent. */
  const textStart = (n: number) => {
    const at = starts[n] ?? text.length;
    return at + indentOf(text, at, lineEnd(n));
  };
  for (let n = 0; n < starts.length; n++) {
    const start = textStart(n);
    const open = fenceOpenAt(text, start, lineEnd(n));
    if (!open) continue;
    const info = text
      .slice(start + open.length, lineEnd(n))
      .trim()
      .split(/\s+/)[0];
    let close = n + 1;
    while (close < starts.length && !isFenceCloseAt(text, textStart(close), lineEnd(close), open)) close++;
    if (info === "base") {
      const from = starts[n + 1] ?? text.length;
      const to = starts[close] ?? text.length;
      blocks.push({ yaml: text.slice(from, to).replace(/\r$/gm, ""), line: n + 2 });
    }
    n = close;
  }
  return blocks;
}

/** Up to three spaces of indentation, as CommonMark allows before a fence. */
function indentOf(text: string, from: number, end: number): number {
  let i = 0;
  while (i < 3 && from + i < end && text.charCodeAt(from + i) === 32) i++;
  return i;
}
