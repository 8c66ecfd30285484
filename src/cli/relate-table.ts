import type { aiRelate } from "../ai/ops/relate/relate-ops.ts";
import type { OutputOf } from "../ops/define.ts";
import { NO_RESULTS, type Style } from "./output.ts";
import { clipTo, fitColumns, terminalWidth } from "./width.ts";
import { wrap } from "./wrap.ts";

type RelateResult = OutputOf<typeof aiRelate>;

const num = (n: number | undefined) => (n === undefined ? "" : n.toFixed(2));

/** The edges as rows of display text: for --format csv, md and ndjson. */
export function relateRows(o: RelateResult): Record<string, string>[] {
  return o.edges.map((e) => ({
    source: e.src_path,
    related: e.dst_path,
    relation: e.relation ?? "",
    confidence: num(e.confidence),
    similarity: num(e.similarity),
    rationale: e.rationale ?? "",
  }));
}

/** ai_relate on a terminal: one row per edge (its rationale dimmed below it), then the drafts and warnings. */
export function relateTable(o: RelateResult, s: Style, summary: string): string {
  const width = terminalWidth();
  const header = ["SOURCE", "RELATED", "RELATION", "CONF", "SIM"];
  const rows = o.edges.map((e) => [e.src_path, e.dst_path, e.relation ?? "—", num(e.confidence), num(e.similarity)]);
  // The table fits the terminal; a path cut keeps its end, the note's name (src/cli/width.ts).
  const widths = fitColumns(
    header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0))),
    width,
  );
  const line = (cells: string[]) =>
    cells
      .map((c, i) => clipTo(c, widths[i] ?? 0, i < 2 ? "start" : "end").padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  const out = [s.dim(summary)];
  if (rows.length) out.push(s.bold(line(header)));
  o.edges.forEach((e, i) => {
    out.push(line(rows[i] ?? []));
    if (e.rationale) out.push(s.dim(wrap(e.rationale, width, "    ")));
  });
  if (rows.length === 0) out.push(NO_RESULTS);
  for (const p of o.proposed_patches ?? []) out.push(s.green(`draft: link ${p.related_to.join(", ")} from ${p.path} (note_patch, if_match ${p.if_match})`));
  for (const w of o.warnings) out.push(s.dim(`warning: ${w.message}`));
  return out.join("\n");
}
