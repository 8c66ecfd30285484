/**
 * Unified diffs of whole lines, the format of `diff -u` and `git diff`, for write previews: three
 * lines of context, `--- a/<path>` and `+++ b/<path>` (`/dev/null` for a file not there yet), and
 * `\ No newline at end of file` after a last line without one. `patch` and `git apply` apply it.
 */

import { IndxError } from "../core/errors.ts";

const CONTEXT = 3;

/**
 * Beyond this many inserted and deleted lines the shortest edit is not searched for: the changed
 * middle is shown as one replacement, still exact, so a rewritten note costs linear time.
 */
const MAX_EDITS = 1_000;

type Kind = " " | "-" | "+";

/** One line of either side, with its line break when it has one. */
interface Edit {
  kind: Kind;
  line: string;
}

/** The diff turning `before` (null: no file yet) into `after`; "" when they are equal. */
export function unifiedDiff(path: string, before: string | null, after: string, maxEdits = MAX_EDITS): string {
  const edits = editScript(splitLines(before ?? ""), splitLines(after), maxEdits);
  const body = hunks(edits);
  if (body.length === 0) return "";
  const from = before === null ? "/dev/null" : `a/${path}`;
  return `--- ${from}\n+++ b/${path}\n${body.join("\n")}\n`;
}

/** Lines with their line breaks kept, so a last line without one differs from the same line with one. */
function splitLines(text: string): string[] {
  const lines: string[] = [];
  for (let at = 0; at < text.length; ) {
    const nl = text.indexOf("\n", at);
    const end = nl === -1 ? text.length : nl + 1;
    lines.push(text.slice(at, end));
    at = end;
  }
  return lines;
}

/** Common head and tail as they are; the middle by Myers' shortest edit, or as one replacement. */
function editScript(a: string[], b: string[], maxEdits: number): Edit[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const aMiddle = a.slice(head, a.length - tail);
  const bMiddle = b.slice(head, b.length - tail);
  const middle = shortestEdit(aMiddle, bMiddle, maxEdits) ?? [
    ...aMiddle.map((line): Edit => ({ kind: "-", line })),
    ...bMiddle.map((line): Edit => ({ kind: "+", line })),
  ];
  const same = (line: string): Edit => ({ kind: " ", line });
  return [...a.slice(0, head).map(same), ...middle, ...a.slice(a.length - tail).map(same)];
}

/**
 * Myers' O(ND) shortest edit script (An O(ND) Difference Algorithm and Its Variations, 1986), or
 * null past maxEdits. trace[d] keeps the furthest x of each diagonal k ∈ [-d, d] (at k + d) as
 * round d began, which is all the backtrack needs: O(D²) memory.
 */
function shortestEdit(a: string[], b: string[], maxEdits: number): Edit[] | null {
  const limit = Math.min(a.length + b.length, maxEdits);
  const offset = limit + 1;
  const v = new Int32Array(2 * limit + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    trace.push(v.slice(offset - d, offset + d + 1));
    for (let k = -d; k <= d; k += 2) {
      // Both diagonals lie inside v (|k ± 1| ≤ limit + 1 = offset), so the defaults are never taken.
      const below = v[offset + k - 1] ?? 0;
      const above = v[offset + k + 1] ?? 0;
      let x = k === -d || (k !== d && below < above) ? above : below + 1;
      let y = x - k;
      while (x < a.length && y < b.length && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= a.length && y >= b.length) return backtrack(trace, a, b, d);
    }
  }
  return null;
}

function backtrack(trace: Int32Array[], a: string[], b: string[], edits: number): Edit[] {
  const out: Edit[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = edits; d > 0; d--) {
    const round = trace[d];
    if (round === undefined) throw new IndxError("internal", "diff backtrack: no trace kept for an edit round");
    const at = (k: number) => round[k + d] ?? 0;
    const k = x - y;
    const inserted = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const fromK = inserted ? k + 1 : k - 1;
    const fromX = at(fromK);
    const fromY = fromX - fromK;
    for (; x > fromX && y > fromY; x--, y--) out.push({ kind: " ", line: a[x - 1] ?? "" });
    if (inserted) out.push({ kind: "+", line: b[--y] ?? "" });
    else out.push({ kind: "-", line: a[--x] ?? "" });
  }
  for (; x > 0; x--) out.push({ kind: " ", line: a[x - 1] ?? "" });
  return out.reverse();
}

/** Hunks of changes with their context; changes closer than twice the context share a hunk. */
function hunks(edits: Edit[]): string[] {
  const out: string[] = [];
  // Lines of each side before edit i, for the hunk headers.
  const aBefore: number[] = [];
  const bBefore: number[] = [];
  for (let i = 0, aSeen = 0, bSeen = 0; i <= edits.length; i++) {
    aBefore.push(aSeen);
    bBefore.push(bSeen);
    if (edits[i]?.kind !== "+") aSeen++;
    if (edits[i]?.kind !== "-") bSeen++;
  }
  const changed = (i: number) => (edits[i]?.kind ?? " ") !== " ";
  let next = 0;
  while (next < edits.length) {
    if (!changed(next)) {
      next++;
      continue;
    }
    const start = Math.max(0, next - CONTEXT);
    let lastChange = next;
    for (let i = next + 1; i < edits.length && i <= lastChange + 2 * CONTEXT + 1; i++) if (changed(i)) lastChange = i;
    const stop = Math.min(edits.length, lastChange + 1 + CONTEXT);
    out.push(header(aBefore, bBefore, start, stop));
    for (const e of edits.slice(start, stop)) {
      out.push(e.kind + e.line.replace(/\n$/, ""));
      if (!e.line.endsWith("\n")) out.push("\\ No newline at end of file");
    }
    next = stop;
  }
  return out;
}

/** `@@ -start,count +start,count @@`; an empty side names the line before it, as diff does. */
function header(aBefore: number[], bBefore: number[], start: number, stop: number): string {
  // start and stop are within [0, edits.length], and both arrays hold edits.length + 1 counts.
  const aFrom = aBefore[start] ?? 0;
  const bFrom = bBefore[start] ?? 0;
  const aCount = (aBefore[stop] ?? 0) - aFrom;
  const bCount = (bBefore[stop] ?? 0) - bFrom;
  const aStart = aCount === 0 ? aFrom : aFrom + 1;
  const bStart = bCount === 0 ? bFrom : bFrom + 1;
  return `@@ -${aStart},${aCount} +${bStart},${bCount} @@`;
}
