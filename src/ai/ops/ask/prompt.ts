import { Type } from "@sinclair/typebox";
import { GROUNDING_RULES } from "../../prompts.ts";
import { Segments } from "../../segments.ts";

/** What ai_ask tells the model and the shape it replies in (docs/contracts.md, AI runtime: grounding). */

export const ASK_SYSTEM = `You answer questions about a person's notes. ${GROUNDING_RULES} Set supported first: false when the passages do not answer the question (then give no segments).`;

/** Segments of an answer at most; more are cut (src/ai/provider-schema.ts settles bounds). */
export const ASK_MAX_SEGMENTS = 60;

export const AskReply = Type.Object({
  supported: Type.Boolean(),
  segments: Segments(ASK_MAX_SEGMENTS, "The answer, claim by claim."),
  followups: Segments(5, "Questions worth asking next, each citing what prompts it."),
});
