import { Type } from "@sinclair/typebox";
import { CitedQuotes, GROUNDING_RULES } from "../../prompts.ts";

/** What ai_toc tells the model: section descriptions of a note, or a map of content over a scope. */

export const TOC_SYSTEM = `You describe the sections of a person's note for its table of contents. ${GROUNDING_RULES} Give each section one line of at most 20 words.`;

export const TocDescriptionsReply = Type.Object({
  sections: Type.Array(Type.Object({ passage: Type.String(), description: Type.String({ maxLength: 500 }), citations: CitedQuotes }), {
    maxItems: 500,
  }),
});

export const MOC_SYSTEM = `You organise a person's notes into a map of content. ${GROUNDING_RULES} Give each group a short title (at most 6 words) and, when asked, each note a one-line description.`;

export const MocReply = Type.Object({
  groups: Type.Array(
    Type.Object({
      key: Type.String({ maxLength: 500 }),
      title: Type.String({ maxLength: 200 }),
      items: Type.Optional(Type.Array(Type.Object({ passage: Type.String(), description: Type.String({ maxLength: 500 }), citations: CitedQuotes }))),
    }),
    { maxItems: 200 },
  ),
});

/** Topic grouping: the model assigns each note (by passage id) to a named topic. */
export const TopicReply = Type.Object({
  topics: Type.Array(Type.Object({ title: Type.String({ maxLength: 200 }), passages: Type.Array(Type.String()) }), { maxItems: 200 }),
});
