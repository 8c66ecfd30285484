import { activateContext } from "../context/ops.ts";
import type { ContextNote, ContextOutput } from "../context/schema.ts";
import { opCommand } from "./op-command.ts";
import { NO_RESULTS, type Style } from "./output.ts";

/** `indx context <query…>`: activate_context, read as a numbered list of notes with their passages. */
export const contextCommand = opCommand(activateContext, {
  positionals: ["query"],
  rest: true,
  human: contextText,
  examples: [
    "indx context deploy runbook",
    'indx context --path "Projects/Apollo Launch.md" --hops 1',
    "indx context how we plan launches --max-tokens 2000 --json",
  ],
});

function contextText(o: ContextOutput, s: Style): string {
  const lines: string[] = [];
  for (const w of o.warnings) lines.push(s.dim(`warning: ${w.message}`));
  if (o.notes.length === 0) lines.push(NO_RESULTS);
  o.notes.forEach((note, i) => {
    lines.push(`${i + 1}. ${s.bold(note.path)}  ${s.dim(`${why(note)} · ${note.score.toFixed(3)}`)}`);
    for (const p of note.passages) {
      lines.push(s.dim(`   ${p.heading ? `› ${p.heading} ` : ""}L${p.start_line}-${p.end_line}${p.truncated ? " (cut)" : ""}`));
      for (const line of p.text.split("\n")) lines.push(`   ${line}`);
    }
  });
  lines.push(s.dim(`${o.tokens} of ${o.max_tokens} tokens${o.omitted ? `; ${o.omitted} more notes left out` : ""}`));
  return lines.join("\n");
}

/** The reason in words: "hit", "up of Projects.md (hop 1)", "links to Ideas.md (hop 2)". */
function why(note: ContextNote): string {
  const r = note.reason;
  const hop = ` (hop ${r.hop})`;
  switch (r.kind) {
    case "hit":
      return "hit";
    case "typed_link":
      return `${r.rel} of ${r.from}${hop}`;
    case "typed_backlink":
      return `its ${r.rel} is ${r.from}${hop}`;
    case "link":
      return `linked from ${r.from}${hop}`;
    case "backlink":
      return `links to ${r.from}${hop}`;
  }
}
