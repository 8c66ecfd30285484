/**
 * Heading-aware chunking of the note body: one chunk per heading section (the heading line
 * included), text before the first heading as its own chunk, oversized sections split at blank
 * lines — never inside a fenced code block — and, as a last resort, at line boundaries.
 */
import { isBlankRange } from "./chars.ts";
import type { Chunk } from "./types.ts";

export const CHUNK_MAX_CHARS = 2000;

export interface ChunkOptions {
  /** Target maximum chunk length in characters (default CHUNK_MAX_CHARS). */
  maxChars?: number;
}

export interface ChunkSource {
  text: string;
  /** Absolute index of the first character of each body line. */
  lineStarts: number[];
  /** 1-based line number of lineStarts[0]. */
  firstLine: number;
  /** Fenced code blocks as flat [firstLine, lastLine, …] pairs (absolute, inclusive, sorted). */
  fences: number[];
  /** Headings in document order (only line, level and text are used). */
  headings: { line: number; level: number; text: string }[];
}

class Lines {
  readonly n: number;
  constructor(
    readonly text: string,
    readonly starts: number[],
  ) {
    this.n = starts.length;
  }
  /** Start of line k; a line past the last starts at the end of the text. */
  start(k: number): number {
    return this.starts[k] ?? this.text.length;
  }
  /** End of line k's content (before `\r\n` / `\n`). */
  end(k: number): number {
    const text = this.text;
    let e: number;
    const next = this.starts[k + 1];
    if (next !== undefined) e = next - 1;
    else {
      e = text.length;
      if (e > this.start(k) && text.charCodeAt(e - 1) === 10) e--;
    }
    if (e > this.start(k) && text.charCodeAt(e - 1) === 13) e--;
    return e;
  }
  blank(k: number): boolean {
    return isBlankRange(this.text, this.start(k), this.end(k));
  }
  /** Characters of lines a..b joined by single line breaks. */
  span(a: number, b: number): number {
    return this.end(b) - this.start(a);
  }
  slice(a: number, b: number): string {
    const s = this.text.slice(this.start(a), this.end(b));
    return s.indexOf("\r") >= 0 ? s.replace(/\r\n/g, "\n") : s;
  }
}

export function buildChunks(src: ChunkSource, opts: ChunkOptions = {}): Chunk[] {
  const maxChars = Math.max(1, opts.maxChars ?? CHUNK_MAX_CHARS);
  const lines = new Lines(src.text, src.lineStarts);
  const out: Chunk[] = [];
  if (lines.n === 0) return out;
  // Fence id per line (0 = none), built lazily for sections that need splitting.
  let fenceOf: Int32Array | null = null;
  const fenceIds = (): Int32Array => {
    if (fenceOf) return fenceOf;
    fenceOf = new Int32Array(lines.n);
    // Fences come in pairs of opening and closing line; an unpaired last one is left out.
    for (let f = 0; ; f += 2) {
      const open = src.fences[f];
      const close = src.fences[f + 1];
      if (open === undefined || close === undefined) break;
      const a = Math.max(0, open - src.firstLine);
      const b = Math.min(lines.n - 1, close - src.firstLine);
      for (let k = a; k <= b; k++) fenceOf[k] = f / 2 + 1;
    }
    return fenceOf;
  };

  const emit = (a: number, b: number, path: string[]) => {
    out.push({ index: out.length, headingPath: path, startLine: src.firstLine + a, endLine: src.firstLine + b, text: lines.slice(a, b) });
  };

  const section = (a0: number, b0: number, path: string[]) => {
    let a = a0;
    let b = b0;
    while (a <= b && lines.blank(a)) a++;
    while (b >= a && lines.blank(b)) b--;
    if (a > b) return;
    if (lines.span(a, b) <= maxChars) {
      emit(a, b, path);
      return;
    }
    const fid = fenceIds();
    // Paragraph units: runs of lines separated by blank lines outside fences.
    const units: [number, number][] = [];
    let u = -1;
    for (let k = a; k <= b; k++) {
      if (fid[k] === 0 && lines.blank(k)) {
        if (u >= 0) units.push([u, k - 1]);
        u = -1;
      } else if (u < 0) u = k;
    }
    if (u >= 0) units.push([u, b]);
    pack(units, path, (s, e) => {
      // A unit too large on its own: split at line boundaries, keeping each fence whole.
      const groups: [number, number][] = [];
      let k = s;
      while (k <= e) {
        let g = k;
        const f = fid[k] ?? 0;
        if (f !== 0) while (g + 1 <= e && fid[g + 1] === f) g++;
        groups.push([k, g]);
        k = g + 1;
      }
      pack(groups, path, (x, y) => emit(x, y, path));
    });
  };

  /** Greedily merges consecutive [start, end] runs into pieces of at most maxChars. */
  const pack = (runs: [number, number][], path: string[], oversized: (s: number, e: number) => void) => {
    let cs = -1;
    let ce = -1;
    for (const [s, e] of runs) {
      if (cs >= 0 && lines.span(cs, e) <= maxChars) {
        ce = e;
        continue;
      }
      if (cs >= 0) emit(cs, ce, path);
      cs = -1;
      if (lines.span(s, e) > maxChars) oversized(s, e);
      else {
        cs = s;
        ce = e;
      }
    }
    if (cs >= 0) emit(cs, ce, path);
  };

  const stack: { level: number; text: string }[] = [];
  let from = 0;
  let path: string[] = [];
  for (const h of src.headings) {
    const k = h.line - src.firstLine;
    if (k < 0 || k >= lines.n) continue;
    if (k > from) section(from, k - 1, path);
    for (let top = stack.at(-1); top !== undefined && top.level >= h.level; top = stack.at(-1)) stack.pop();
    stack.push({ level: h.level, text: h.text });
    path = stack.map((x) => x.text);
    from = k;
  }
  section(from, lines.n - 1, path);
  return out;
}
