import { stdoutIsTTY } from "./io.ts";

/**
 * The width human output is laid out for: COLUMNS when set, else the terminal's own width, else 80
 * (a pipe or a file has none). Asked only when a view lays out a table or wraps text, since
 * `process.stdout` costs start-up (src/cli/io.ts).
 */
export function terminalWidth(): number {
  const env = Number(process.env.COLUMNS);
  if (Number.isInteger(env) && env > 0) return env;
  if (stdoutIsTTY()) {
    const cols = process.stdout.columns;
    if (cols > 0) return cols;
  }
  return 80;
}

/** The narrowest a column of a table is squeezed to before the table is let run past the width. */
const MIN_COLUMN = 6;

/**
 * Column widths that fit `width` with `gap` spaces between columns: each column keeps its natural
 * width up to one shared cap, the widest found that fits, so narrow columns (a status, a date)
 * stay whole and the long ones (titles, paths) give up the room.
 */
export function fitColumns(natural: readonly number[], width: number, gap = 2): number[] {
  const room = width - gap * Math.max(0, natural.length - 1);
  const total = (cap: number) => natural.reduce((sum, w) => sum + Math.min(w, cap), 0);
  if (total(Number.POSITIVE_INFINITY) <= room) return [...natural];
  let lo = MIN_COLUMN;
  let hi = Math.max(MIN_COLUMN, ...natural);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (total(mid) <= room) lo = mid;
    else hi = mid - 1;
  }
  return natural.map((w) => Math.min(w, lo));
}

/** Text cut to `width` characters, the cut marked with an ellipsis at the end (or at the start: a path's end says more). */
export function clipTo(text: string, width: number, from: "end" | "start" = "end"): string {
  if (text.length <= width) return text;
  if (width <= 1) return "…".slice(0, width);
  return from === "end" ? `${text.slice(0, width - 1)}…` : `…${text.slice(text.length - width + 1)}`;
}
