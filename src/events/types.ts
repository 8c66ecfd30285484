import { Type, type Static } from "@sinclair/typebox";

export const EVENT_KINDS = [
  "note.created",
  "note.updated",
  "note.deleted",
  "note.moved",
  "tag.renamed",
  "index.updated",
  "ai.invocation",
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

/** Events carry paths, counts and durations, never content (DESIGN.md §5). */
export const VaultEventSchema = Type.Object({
  id: Type.String({ description: "<unix ms>-<process tag>-<sequence>: increasing within one process." }),
  time: Type.String(),
  kind: Type.Union(EVENT_KINDS.map((k) => Type.Literal(k))),
  source: Type.Union([Type.Literal("indx"), Type.Literal("external")], {
    description: "indx: a write through indx; external: a change seen on disk (an editor, sync, git).",
  }),
  path: Type.Optional(Type.String()),
  from: Type.Optional(Type.String()),
  to: Type.Optional(Type.String()),
  op: Type.Optional(Type.String()),
  etag: Type.Optional(Type.String()),
  count: Type.Optional(Type.Integer()),
  duration_ms: Type.Optional(Type.Integer()),
});

export type VaultEvent = Static<typeof VaultEventSchema>;
export type NewEvent = Omit<VaultEvent, "id" | "time">;
