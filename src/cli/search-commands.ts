import type { OutputOf } from "../ops/define.ts";
import { related, vaultSearch } from "../search/ops.ts";
import { opCommand } from "./op-command.ts";
import { NO_RESULTS, type Style } from "./output.ts";
import { terminalWidth } from "./width.ts";
import { wrap } from "./wrap.ts";

/** What a snippet shows: its `**` match marks are printed as colour. */
const shownLength = (s: string) => s.replaceAll("**", "").length;

/*
 * Search and related have a module of their own: `indx search`, the command agents call most,
 * loads only the search operations, not every operation of op-commands.ts (docs/decisions.md,
 * "A CLI read that is current and fast").
 */

/** Ranked results (search and related): path › heading and score, then the snippet with its matches highlighted. */
function rankedResults(o: OutputOf<typeof vaultSearch>, s: Style): string {
  const width = terminalWidth();
  const lines: string[] = [];
  for (const w of o.warnings) lines.push(s.dim(`warning: ${w.message}`));
  if (!o.results.length) lines.push(NO_RESULTS);
  for (const r of o.results) {
    lines.push(`${s.bold(r.path)}${r.heading ? s.dim(` › ${r.heading}`) : ""}  ${s.dim(r.score.toFixed(3))}`);
    // Wrapped to the terminal before the matches are coloured; the ** marks take no room.
    if (r.snippet) lines.push(wrap(r.snippet, width, "    ", "    ", shownLength).replace(/\*\*([\s\S]+?)\*\*/g, (_, match: string) => s.yellow(match)));
  }
  if (o.next_cursor) lines.push(s.dim(`more: --cursor ${o.next_cursor}`));
  return lines.join("\n");
}

/** CLI names of the read operations (docs/contracts.md, Operations). */
export const searchCommand = opCommand(vaultSearch, {
  positionals: ["q"],
  rest: true,
  human: rankedResults,
  examples: [
    "indx search deploy runbook",
    `indx search '"exact phrase" +required -excluded' --tag project --path-glob 'Projects/**'`,
    'indx search "how do we roll back a launch" --mode semantic --limit 5',
    "indx search rollback --json path,score",
  ],
});
export const relatedCommand = opCommand(related, {
  positionals: ["id"],
  human: rankedResults,
  examples: ['indx related "Projects/Apollo Launch.md"', 'indx related "Projects/Apollo Launch.md#2" --limit 5'],
});
