/**
 * The patch ops an agent can send (docs/contracts.md, Patch ops). The descriptions are written for
 * the agent that reads them in a tool schema: they say how to address a target and what happens.
 */
import { type Static, Type } from "@sinclair/typebox";
import { INPUT_LIMITS } from "../ops/schemas.ts";

const Heading = Type.String({
  minLength: 1,
  maxLength: INPUT_LIMITS.textLineChars,
  description: 'Heading text ("Tasks"), "## Tasks" or nested "A > B"; "Log[2]": the second "Log".',
});

/** Markdown a patch inserts: whole lines (PatchOpSchema's description says so once for every op). */
const Markdown = (what: string) => Type.String({ maxLength: INPUT_LIMITS.noteChars, description: what });

const op = <L extends string>(name: L, description: string) => Type.Literal(name, { description });

export const SetFrontmatterOp = Type.Object(
  {
    op: op("set_frontmatter", "Set a property."),
    key: Type.String({ minLength: 1, maxLength: INPUT_LIMITS.nameChars, description: "Property name." }),
    value: Type.Unknown({
      description: "New value: string, number, boolean, null, list or object; dates as strings.",
    }),
  },
  { additionalProperties: false },
);

export const DeleteFrontmatterOp = Type.Object(
  {
    op: op("delete_frontmatter", "Remove a property."),
    key: Type.String({ minLength: 1, maxLength: INPUT_LIMITS.nameChars, description: "Property name." }),
  },
  { additionalProperties: false },
);

export const AppendBodyOp = Type.Object(
  {
    op: op("append_body", "At the end of the note."),
    markdown: Markdown("Markdown lines."),
  },
  { additionalProperties: false },
);

export const PrependBodyOp = Type.Object(
  {
    op: op("prepend_body", "At the start of the body."),
    markdown: Markdown("Markdown lines."),
  },
  { additionalProperties: false },
);

export const InsertBeforeHeadingOp = Type.Object(
  {
    op: op("insert_before_heading", "Before the heading line."),
    heading: Heading,
    markdown: Markdown("Markdown lines."),
  },
  { additionalProperties: false },
);

export const InsertAfterHeadingOp = Type.Object(
  {
    op: op("insert_after_heading", "After the heading line."),
    heading: Heading,
    markdown: Markdown("Markdown lines."),
  },
  { additionalProperties: false },
);

export const ReplaceSectionOp = Type.Object(
  {
    op: op("replace_section", "Replace a section's content, subsections included."),
    heading: Heading,
    markdown: Markdown("without the heading line."),
  },
  { additionalProperties: false },
);

export const AppendToSectionOp = Type.Object(
  {
    op: op("append_to_section", "At the end of a section."),
    heading: Heading,
    markdown: Markdown("Markdown lines."),
  },
  { additionalProperties: false },
);

export const ReplaceBlockOp = Type.Object(
  {
    op: op("replace_block", "Replace the block carrying ^id."),
    block_id: Type.String({ minLength: 1, maxLength: INPUT_LIMITS.nameChars, description: "Block id, '^' optional." }),
    markdown: Markdown("its ^id is kept."),
  },
  { additionalProperties: false },
);

export const RenameHeadingOp = Type.Object(
  {
    op: op("rename_heading", "Rename a heading; links to it follow."),
    from: Heading,
    to: Type.String({ minLength: 1, maxLength: INPUT_LIMITS.textLineChars, description: "New heading text, no #s." }),
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
    description: "An edit; markdown is whole lines.",
  },
);

export type PatchOp = Static<typeof PatchOpSchema>;
