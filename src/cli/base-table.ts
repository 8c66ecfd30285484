import { cellText } from "../bases/cells.ts";
import type { baseQuery } from "../bases/ops.ts";
import type { OutputOf } from "../ops/define.ts";
import { NO_RESULTS, type Style } from "./output.ts";
import { clipTo, fitColumns, terminalWidth } from "./width.ts";

type BaseResult = OutputOf<typeof baseQuery>;

/** A cell on one line: a table row must not break. */
const oneLine = (s: string) => s.replace(/\s+/g, " ");

/** A base query's rows as records of display text, keyed by column name: for CSV, Markdown and NDJSON. */
export function baseRows(o: BaseResult): Record<string, string>[] {
  return o.rows.map((r) => Object.fromEntries(o.columns.map((c) => [c.name, cellText(r.cells[c.id] ?? { type: "null", value: null })])));
}

/** A base query on a terminal: a table with a header, group headings, and summary lines. */
export function baseTable(o: BaseResult, s: Style, summary: string): string {
  const width = terminalWidth();
  const header = o.columns.map((c) => oneLine(c.name));
  const body = o.rows.map((r) => o.columns.map((c) => oneLine(cellText(r.cells[c.id] ?? { type: "null", value: null }))));
  // The table fits the terminal: the widest columns give up room first (src/cli/width.ts).
  const widths = fitColumns(
    header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]?.length ?? 0))),
    width,
  );
  const line = (cells: string[]) =>
    cells
      .map((c, i) => clipTo(c, widths[i] ?? 0).padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  const summaryLine = (sums: BaseResult["summaries"]) =>
    o.columns
      .map((c) => {
        const sum = sums[c.id];
        return sum ? `${c.name}: ${cellText(sum)}` : "";
      })
      .filter(Boolean)
      .join("  ");
  const out = [s.dim(summary), s.bold(line(header)), s.dim(widths.map((w) => "─".repeat(w)).join("  "))];
  let group: number | null = null;
  o.rows.forEach((r, i) => {
    if (o.groups && r.group !== null && r.group !== group) {
      group = r.group;
      const g = o.groups[group];
      if (g) {
        const sums = summaryLine(g.summaries);
        out.push(s.yellow(`${cellText(g.key) || "None"} (${g.count})${sums ? `  ${sums}` : ""}`));
      }
    }
    out.push(line(body[i] ?? []));
  });
  if (o.rows.length === 0) out.push(NO_RESULTS);
  const totals = summaryLine(o.summaries);
  if (totals) out.push(s.dim(totals));
  if (o.next_cursor) out.push(s.dim(`more: --cursor ${o.next_cursor}`));
  return out.join("\n");
}
