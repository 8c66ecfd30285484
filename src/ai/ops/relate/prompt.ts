import { Type } from "@sinclair/typebox";
import { CitedQuotes, GROUNDING_RULES } from "../../prompts.ts";

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
      citations: CitedQuotes,
    }),
    { maxItems: 100 },
  ),
});
