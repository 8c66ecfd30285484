import { cellText } from "../bases/cells.ts";
import type { baseQuery } from "../bases/ops.ts";
import type { OutputOf } from "../ops/define.ts";
import { NO_RESULTS, type Style } from "./output.ts";

type BaseResult = OutputOf<typeof baseQuery>;

const MAX_WIDTH = 40;

const clip = (s: string) => {
  const line = s.replace(/\s+/g, " ");
  return line.length > MAX_WIDTH ? `${line.slice(0, MAX_WIDTH - 1)}…` : line;
};

/** A base query's rows as records of display text, keyed by column name: for CSV, Markdown and NDJSON. */
export function baseRows(o: BaseResult): Record<string, string>[] {
  return o.rows.map((r) => Object.fromEntries(o.columns.map((c) => [c.name, cellText(r.cells[c.id] ?? { type: "null", value: null })])));
}

/** A base query on a terminal: a table with a header, group headings, and summary lines. */
export function baseTable(o: BaseResult, s: Style, summary: string): string {
  const header = o.columns.map((c) => clip(c.name));
  const body = o.rows.map((r) => o.columns.map((c) => clip(cellText(r.cells[c.id] ?? { type: "null", value: null }))));
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
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
