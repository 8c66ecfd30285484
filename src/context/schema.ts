import { type Static, Type } from "@sinclair/typebox";
import { Nullable, Warning } from "../ops/schemas.ts";

/** What activate_context answers (docs/contracts.md, Context). */

export const ContextPassage = Type.Object({
  chunk_id: Type.String({ description: "'<path>#<index>': chunk_get reads the whole section." }),
  heading: Nullable(Type.String()),
  start_line: Type.Integer(),
  end_line: Type.Integer(),
  text: Type.String(),
  truncated: Type.Optional(Type.Boolean({ description: "The text was cut to fit max_tokens." })),
});
export type ContextPassage = Static<typeof ContextPassage>;

export const ContextReason = Type.Object({
  kind: Type.Union([Type.Literal("hit"), Type.Literal("typed_link"), Type.Literal("typed_backlink"), Type.Literal("link"), Type.Literal("backlink")], {
    description:
      "hit: a search hit or the given note; typed_link: `from`'s property `rel` links here; typed_backlink: this note's property `rel` links to `from`; link: `from` links here; backlink: this note links to `from`.",
  }),
  hop: Type.Integer({ description: "Links walked from a hit (0 for a hit)." }),
  from: Type.Optional(Type.String({ description: "The note this one was reached from." })),
  rel: Type.Optional(Type.String({ description: "The frontmatter property of a typed link." })),
});

export const ContextNote = Type.Object({
  path: Type.String(),
  title: Type.String(),
  score: Type.Number({ description: "0..1: a hit's search score, times a weight per link walked." }),
  reason: ContextReason,
  passages: Type.Array(ContextPassage),
});
export type ContextNote = Static<typeof ContextNote>;

export const ContextOutput = Type.Object({
  notes: Type.Array(ContextNote, { description: "Best first." }),
  omitted: Type.Integer({ description: "Notes of the neighbourhood left out by max_tokens or limit." }),
  tokens: Type.Integer({ description: "Tokens of this answer as compact JSON, counted typically (o200k and cl100k count fewer): never above max_tokens." }),
  max_tokens: Type.Integer(),
  warnings: Type.Array(Warning),
});
export type ContextOutput = Static<typeof ContextOutput>;
