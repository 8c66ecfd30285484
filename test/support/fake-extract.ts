/**
 * Scripted model replies for ai_extract: the note says what the fake model extracts, so a test
 * writes the model's behaviour into its fixture. A passage line `Extract wanted: <JSON>` makes the
 * fake reply with that JSON as `data`, citing the line; `Extract uncited: <JSON>` replies with it
 * under a quote the note does not hold (so no citation survives). Without either line the data is
 * an empty list, citing the note's first passage.
 */
import { type ChatReply, type FakeChat, parsePassages } from "./fake-chat.ts";

export function extractReplies(chat: FakeChat): ChatReply | undefined {
  if (!chat.system.includes("You extract structured data")) return undefined;
  const prompt = chat.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
  const passages = parsePassages(prompt);
  for (const p of passages)
    for (const line of p.text.split("\n")) {
      const wanted = /^Extract (wanted|uncited): (.*)$/.exec(line.trim());
      if (!wanted) continue;
      const quote = wanted[1] === "wanted" ? line.trim() : "a sentence that this note never contained";
      return { content: { data: JSON.parse(wanted[2]!), confidence: 0.8, citations: [{ passage: p.id, quote }] } };
    }
  const first = passages[0];
  return { content: { data: [], confidence: 0.5, citations: first ? [{ passage: first.id, quote: first.text.trim().split("\n")[0]! }] : [] } };
}

/** The action-items schema of the extraction example in docs/contracts.md, and meeting notes that script the fake's replies. */
export const ACTION_ITEMS = {
  type: "array",
  items: {
    type: "object",
    required: ["task", "owner"],
    properties: {
      task: { type: "string", minLength: 3 },
      owner: { type: "string" },
      due_date: { type: "string", format: "date" },
      blocked_by: { type: "array", items: { type: "string" } },
    },
    additionalProperties: false,
  },
};

export const ANA = { task: "Draft the launch plan", owner: "Ana", due_date: "2026-05-04" };
export const BO = { task: "Book the venue", owner: "Bo", blocked_by: ["budget"] };
export const extractLine = (data: unknown) => `Extract wanted: ${JSON.stringify(data)}`;

export const MEETINGS = {
  "Meetings/2026-Q2/04-01 Kickoff.md": `---\ntitle: Kickoff\n---\n# Kickoff\n\nWe agreed on the plan.\n\n${extractLine([ANA, BO])}\n`,
  "Meetings/2026-Q2/04-08 Review.md": `# Review\n\n${extractLine([
    { task: "Ship the beta", owner: "Cy", due_date: "next week" },
    { task: "Fix the build", owner: "Di" },
  ])}\n`,
  "Meetings/2026-Q2/04-15 Retro.md": `# Retro\n\n${extractLine({ task: "not a list", owner: "Ed" })}\n`,
  "Meetings/2026-Q2/04-22 Planning.md": `# Planning\n\nExtract uncited: ${JSON.stringify([{ task: "Hire two people", owner: "Fa" }])}\n`,
};
