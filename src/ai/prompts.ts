import { Type } from "@sinclair/typebox";
import { ModelCitation } from "./citations.ts";
import { Segments } from "./segments.ts";

/**
 * What the model is told and the shapes it must reply in (docs/contracts.md, AI runtime:
 * grounding). The model never types a path: it cites passage ids with a short verbatim quote,
 * and the runtime turns each into a Citation only after checking the quote is really there.
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

const Cited = Type.Array(ModelCitation, { maxItems: 20 });

export const ASK_SYSTEM = `You answer questions about a person's notes. ${GROUNDING_RULES} Set supported first: false when the passages do not answer the question (then give no segments).`;

/** Segments of an answer at most; more are cut (src/ai/provider-schema.ts settles bounds). */
export const ASK_MAX_SEGMENTS = 60;

export const AskReply = Type.Object({
  supported: Type.Boolean(),
  segments: Segments(ASK_MAX_SEGMENTS, "The answer, claim by claim."),
  followups: Segments(5, "Questions worth asking next, each citing what prompts it."),
});

export const SUMMARIZE_SYSTEM = `You summarize a person's notes. ${GROUNDING_RULES} The text, the tl;dr, each key point and each open question are segments with their own citations.`;

/** Segments of a summary's text at most. */
export const SUMMARY_MAX_SEGMENTS = 80;

export const SummaryReply = Type.Object({
  text: Segments(SUMMARY_MAX_SEGMENTS, "The summary, claim by claim."),
  tldr: Segments(4, "One or two sentences; empty when not asked for."),
  key_points: Segments(40, "One key point each."),
  open_questions: Segments(20, "What the notes leave unresolved, each citing where; empty when not asked for."),
});

/** The map step of a summary too large for one prompt: key points only, each cited. */
export const PartialSummaryReply = Type.Object({
  key_points: Segments(40, "One key point each."),
});

export const TOC_SYSTEM = `You describe the sections of a person's note for its table of contents. ${GROUNDING_RULES} Give each section one line of at most 20 words.`;

export const TocDescriptionsReply = Type.Object({
  sections: Type.Array(Type.Object({ passage: Type.String(), description: Type.String({ maxLength: 500 }), citations: Cited }), {
    maxItems: 500,
  }),
});

export const MOC_SYSTEM = `You organise a person's notes into a map of content. ${GROUNDING_RULES} Give each group a short title (at most 6 words) and, when asked, each note a one-line description.`;

export const MocReply = Type.Object({
  groups: Type.Array(
    Type.Object({
      key: Type.String({ maxLength: 500 }),
      title: Type.String({ maxLength: 200 }),
      items: Type.Optional(Type.Array(Type.Object({ passage: Type.String(), description: Type.String({ maxLength: 500 }), citations: Cited }))),
    }),
    { maxItems: 200 },
  ),
});

/** Topic grouping: the model assigns each note (by passage id) to a named topic. */
export const TopicReply = Type.Object({
  topics: Type.Array(Type.Object({ title: Type.String({ maxLength: 200 }), passages: Type.Array(Type.String()) }), { maxItems: 200 }),
});

/** ai_relate's own version: its prompt changes without invalidating the other operations' cached replies. */
export const RELATE_PROMPT_VERSION = "relate-2026-11-24.1";

export const RELATE_SYSTEM = `You say how a source note relates to candidate notes. ${GROUNDING_RULES} For each candidate the source is related to, give its id (e.g. C2), one relation label from the list offered, read as "the source <label> the candidate" (extends: builds on it; summarizes: condenses it; cites: refers to it; contradicts: disagrees with it; same_topic: covers the same subject; precedes: comes before it; depends_on: needs it; duplicates: says the same), your confidence from 0 to 1, a rationale of one or two sentences, and citations quoting both notes. Leave out candidates that are not related.`;

export const RelateReply = Type.Object({
  edges: Type.Array(
    Type.Object({
      candidate: Type.String({ maxLength: 20 }),
      // A string, not an enum: an unknown label costs its one edge (relation_invalid), not the whole reply.
      relation: Type.String({ maxLength: 40 }),
      confidence: Type.Number(),
      rationale: Type.String({ maxLength: 1_000 }),
      citations: Cited,
    }),
    { maxItems: 100 },
  ),
});
