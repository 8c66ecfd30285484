import { type Static, Type } from "@sinclair/typebox";
import { PatchOpSchema } from "../../../patch/schema.ts";

/**
 * A draft edit an AI operation hands back instead of writing (docs/decisions.md, AI writes): the
 * note_patch call that would make it, so an agent (or a person) reviews it and forwards it to
 * note_patch, which checks `if_match` and the caller's write scope like any other write.
 */
export const ProposedPatch = Type.Object({
  path: Type.String({ description: "The note the patch edits." }),
  if_match: Type.String({ description: "The etag of the note as the suggestion read it: pass it to note_patch so a changed note is not overwritten." }),
  ops: Type.Array(PatchOpSchema, { description: "note_patch operations, in order." }),
  reason: Type.String({ description: "Why the edit is proposed." }),
  related_to: Type.Array(Type.String(), { description: "Other notes the edit is about (a proposed link's target)." }),
});
export type ProposedPatch = Static<typeof ProposedPatch>;
