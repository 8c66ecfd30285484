import { Type } from "@sinclair/typebox";
import { ModelCitation } from "./citations.ts";

/**
 * What every AI operation tells the model about grounding (docs/contracts.md, AI runtime:
 * grounding); each family's own system text and reply shape sit in its folder
 * (src/ai/ops/<family>/prompt.ts, docs/architecture.md). The model never types a path: it cites
 * passage ids with a short verbatim quote, and the runtime turns each into a Citation only after
 * checking the quote is really there.
 */

/** Bumped whenever a prompt or reply shape changes, so cached replies of the old ones are never served. */
export const PROMPT_VERSION = "2026-11-27.segments.2";

export const GROUNDING_RULES = [
  "You work only from the numbered source passages given to you: each starts with a line [P<n>] <note path> § <section>, and the list ends with [end of passages].",
  "Never use outside knowledge, never guess, and never invent sources.",
  "Support every claim with citations: {passage: the passage id, e.g. P3, quote: a short verbatim quote (5 to 25 words) copied exactly from that passage}.",
  "Write prose as segments: each segment is one claim of a sentence or two, in the passages' own words, with the citations that support it; say nothing in a segment that its quotes do not show.",
  "A claim you cannot support with a quote must be left out.",
  "Reply with JSON only, in the requested shape.",
].join(" ");

const STYLES: Record<string, string> = {
  neutral: "Write plainly.",
  bullets: "Write as short bullet points.",
  executive: "Write for a busy decision maker: outcome first, no detail that does not change a decision.",
  technical: "Write for an engineer: precise terms, numbers and names kept.",
};

export function styleLine(style: string | undefined, language: string | undefined, audience?: string): string {
  return [
    STYLES[style ?? "neutral"] ?? STYLES.neutral,
    language ? `Write in the language with BCP 47 tag "${language}".` : "Write in the language of the passages.",
    audience ? `The reader is: ${audience}.` : "",
  ]
    .filter(Boolean)
    .join(" ");
}

/** Quotes a reply cites for one claim: at most 20. */
export const CitedQuotes = Type.Array(ModelCitation, { maxItems: 20 });
