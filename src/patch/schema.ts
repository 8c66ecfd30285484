/**
 * The patch ops an agent can send (docs/contracts.md, Patch ops). The descriptions are written for
 * the agent that reads them in a tool schema: they say how to address a target and what happens.
 */
import { type Static, Type } from "@sinclair/typebox";
import { INPUT_LIMITS } from "../ops/schemas.ts";

const Heading = Type.String({
  minLength: 1,
  maxLength: INPUT_LIMITS.textLineChars,
  description:
    'Heading text ("Tasks"), with #s for the level ("## Tasks"), or nested ("Projects > Tasks"); case and punctuation ' +
    'are ignored. It must match exactly one heading; "Log[2]" is the second of two.',
});

/** Markdown a patch inserts: whole lines (PatchOpSchema's description says so once for every op). */
const Markdown = (what: string) => Type.String({ maxLength: INPUT_LIMITS.noteChars, description: what });

const op = <L extends string>(name: L, description: string) => Type.Literal(name, { description });

export const SetFrontmatterOp = Type.Object(
  {
    op: op("set_frontmatter", "Set one frontmatter property (creating the frontmatter if needed)."),
    key: Type.String({ minLength: 1, maxLength: INPUT_LIMITS.nameChars, description: "Top-level property name (case-sensitive)." }),
    value: Type.Unknown({
      description: 'The whole new value, as Obsidian writes it: string, number, boolean, null (empty), list or object; dates as strings ("2024-05-01").',
    }),
  },
  { additionalProperties: false },
);

export const DeleteFrontmatterOp = Type.Object(
  {
    op: op("delete_frontmatter", "Remove one frontmatter property; a missing key is patch_target_not_found."),
    key: Type.String({ minLength: 1, maxLength: INPUT_LIMITS.nameChars, description: "Top-level property name." }),
  },
  { additionalProperties: false },
);

export const AppendBodyOp = Type.Object(
  {
    op: op("append_body", "Add lines at the end of the note."),
    markdown: Markdown("Markdown to add."),
  },
  { additionalProperties: false },
);

export const PrependBodyOp = Type.Object(
  {
    op: op("prepend_body", "Add lines at the start of the body (after the frontmatter)."),
    markdown: Markdown("Markdown to add."),
  },
  { additionalProperties: false },
);

export const InsertBeforeHeadingOp = Type.Object(
  {
    op: op("insert_before_heading", "Insert lines just before a heading line."),
    heading: Heading,
    markdown: Markdown("Markdown to add."),
  },
  { additionalProperties: false },
);

export const InsertAfterHeadingOp = Type.Object(
  {
    op: op("insert_after_heading", "Insert lines just after a heading line."),
    heading: Heading,
    markdown: Markdown("Markdown to add."),
  },
  { additionalProperties: false },
);

export const ReplaceSectionOp = Type.Object(
  {
    op: op("replace_section", "Replace a section's content (its subsections included) and keep its heading line."),
    heading: Heading,
    markdown: Markdown("The new content, without the heading line; empty for an empty section."),
  },
  { additionalProperties: false },
);

export const AppendToSectionOp = Type.Object(
  {
    op: op("append_to_section", "Add lines at the end of a section, after its subsections."),
    heading: Heading,
    markdown: Markdown("Markdown to add."),
  },
  { additionalProperties: false },
);

export const ReplaceBlockOp = Type.Object(
  {
    op: op("replace_block", "Replace the paragraph, list item or block that carries ` ^id`."),
    block_id: Type.String({ minLength: 1, maxLength: INPUT_LIMITS.nameChars, description: 'The id, with or without "^"; case-insensitive.' }),
    markdown: Markdown("The new block; its ` ^id` is kept if you leave it out."),
  },
  { additionalProperties: false },
);

export const RenameHeadingOp = Type.Object(
  {
    op: op("rename_heading", "Change a heading's text (not its level); links to it across the vault are rewritten."),
    from: Heading,
    to: Type.String({ minLength: 1, maxLength: INPUT_LIMITS.textLineChars, description: "The new text, without #s." }),
  },
  { additionalProperties: false },
);

export const PatchOpSchema = Type.Union(
  [
    SetFrontmatterOp,
    DeleteFrontmatterOp,
    AppendBodyOp,
    PrependBodyOp,
    InsertBeforeHeadingOp,
    InsertAfterHeadingOp,
    ReplaceSectionOp,
    AppendToSectionOp,
    ReplaceBlockOp,
    RenameHeadingOp,
  ],
  {
    description: "One structural edit. Markdown goes in as whole lines, with the note's line endings.",
  },
);

export type PatchOp = Static<typeof PatchOpSchema>;
