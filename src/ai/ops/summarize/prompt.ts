import { Type } from "@sinclair/typebox";
import { GROUNDING_RULES } from "../../prompts.ts";
import { Segments } from "../../segments.ts";

/** What ai_summarize tells the model and the shapes it replies in, whole or map step (docs/contracts.md, AI runtime). */

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
