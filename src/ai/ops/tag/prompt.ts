import { Type } from "@sinclair/typebox";
import { ModelCitation } from "../../citations.ts";
import { GROUNDING_RULES } from "../../prompts.ts";

/** Bumped whenever the tag prompt or reply shape changes, so an old cached reply is never served. */
export const TAG_PROMPT_VERSION = "2026-11-24.tag.1";

export const TAG_SYSTEM = `You suggest tags for one of a person's notes. ${GROUNDING_RULES} A tag is a word or words joined by - or _, nested with / (e.g. project/alpha): no spaces, no '#'. Prefer the vault's existing tags whenever one fits. Give each tag a confidence from 0 to 1, a one-line rationale, and citations of the passages that justify it.`;

const Cited = Type.Array(ModelCitation, { maxItems: 20 });

/** The reply the model is asked for: with candidates, the tag is constrained to exactly that set. */
export function tagReply(candidates: readonly string[] | null) {
  return Type.Object({
    tags: Type.Array(
      Type.Object({
        tag: candidates ? Type.Union(candidates.map((c) => Type.Literal(c))) : Type.String({ maxLength: 200 }),
        confidence: Type.Number({ minimum: 0, maximum: 1 }),
        rationale: Type.String({ maxLength: 500 }),
        citations: Cited,
      }),
      { maxItems: 40 },
    ),
  });
}

/** The reply as it is accepted: every proposed tag is then checked one by one, and an unfit one dropped with a warning. */
export const TagReplyAccepted = Type.Object({
  tags: Type.Array(
    Type.Object({
      tag: Type.String({ maxLength: 1_000 }),
      confidence: Type.Number(),
      rationale: Type.Optional(Type.String({ maxLength: 2_000 })),
      citations: Type.Array(ModelCitation, { maxItems: 50 }),
    }),
    { maxItems: 100 },
  ),
});

export interface TagAsk {
  existing: readonly { tag: string; count: number }[];
  candidates: readonly string[] | null;
  forbid: readonly string[];
  namespace: string | null;
  allowNew: boolean;
  maxPerNote: number;
  language?: string;
}

/** The instructions after the passages: the vocabulary and the caller's constraints. */
export function tagInstructions(ask: TagAsk): string {
  return [
    ask.existing.length ? `The vault's existing tags, most used first: ${ask.existing.map((t) => `${t.tag} (${t.count})`).join(", ")}.` : "",
    ask.candidates ? `Use only these tags: ${ask.candidates.join(", ")}.` : "",
    ask.forbid.length ? `Never propose these tags or tags under them: ${ask.forbid.join(", ")}.` : "",
    ask.namespace ? `Propose only tags under ${ask.namespace}/ (e.g. ${ask.namespace}/example).` : "",
    ask.allowNew ? "" : "Propose only existing tags.",
    ask.language ? `Write rationales in the language with BCP 47 tag "${ask.language}".` : "",
    `Propose at most ${ask.maxPerNote} tags for this note.`,
  ]
    .filter(Boolean)
    .join("\n");
}
