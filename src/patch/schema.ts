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
    'The target heading: its text ("Tasks"), its text with leading #s to fix the level ("## Tasks"), ' +
    'or a path of headings, each inside the previous one\'s section ("Projects > Tasks"; "Projects::Tasks" also works). ' +
    "Matching ignores case and punctuation like Obsidian links do. It must match exactly one heading: " +
    "none is patch_target_not_found, several is patch_target_ambiguous (with every candidate's path, line and address). " +
    'Several headings with the same text and path are told apart by their place: "Log[2]" is the second.',
});

const Markdown = (what: string) =>
  Type.String({
    maxLength: INPUT_LIMITS.noteChars,
    description: `${what} Inserted as whole lines: a final line break is added if missing, and line endings follow the note's (LF or CRLF).`,
  });

const op = <L extends string>(name: L, description: string) => Type.Literal(name, { description });

export const SetFrontmatterOp = Type.Object(
  {
    op: op("set_frontmatter", "Set one frontmatter property, creating the frontmatter block if the note has none."),
    key: Type.String({
      minLength: 1,
      maxLength: INPUT_LIMITS.nameChars,
      description: "Top-level property name (case-sensitive, one line). Nested keys are not addressed.",
    }),
    value: Type.Unknown({
      description:
        "New value, written as Obsidian writes it: strings (quoted only when YAML needs it), numbers, booleans, " +
        'null (an empty property), lists (one `- item` per line), nested objects. Dates are strings ("2024-05-01"). ' +
        "Replaces the whole existing value; other properties, their order and comments are left untouched.",
    }),
  },
  { additionalProperties: false },
);

export const DeleteFrontmatterOp = Type.Object(
  {
    op: op("delete_frontmatter", "Remove one frontmatter property (its key line and its value lines)."),
    key: Type.String({ minLength: 1, maxLength: INPUT_LIMITS.nameChars, description: "Top-level property name. A missing key is patch_target_not_found." }),
  },
  { additionalProperties: false },
);

export const AppendBodyOp = Type.Object(
  {
    op: op("append_body", "Add lines at the end of the note."),
    markdown: Markdown("Markdown to add at the end."),
  },
  { additionalProperties: false },
);

export const PrependBodyOp = Type.Object(
  {
    op: op("prepend_body", "Add lines at the start of the body: right after the frontmatter block, or at the top."),
    markdown: Markdown("Markdown to add at the start of the body."),
  },
  { additionalProperties: false },
);

export const InsertBeforeHeadingOp = Type.Object(
  {
    op: op("insert_before_heading", "Insert lines just before a heading line (i.e. at the end of the previous section)."),
    heading: Heading,
    markdown: Markdown("Markdown to insert."),
  },
  { additionalProperties: false },
);

export const InsertAfterHeadingOp = Type.Object(
  {
    op: op("insert_after_heading", "Insert lines just after a heading line, before the section's existing content."),
    heading: Heading,
    markdown: Markdown("Markdown to insert."),
  },
  { additionalProperties: false },
);

export const ReplaceSectionOp = Type.Object(
  {
    op: op(
      "replace_section",
      "Replace a section's content, keeping its heading line. The section runs to the next heading of the same or a " +
        "higher level, so subheadings inside it are replaced too. Blank lines before the next heading are kept.",
    ),
    heading: Heading,
    markdown: Markdown("The new section content, without the heading line (empty string: an empty section)."),
  },
  { additionalProperties: false },
);

export const AppendToSectionOp = Type.Object(
  {
    op: op(
      "append_to_section",
      "Add lines at the end of a section (after its subsections), right after its last non-blank line; " +
        "the blank lines before the next heading stay after the new lines.",
    ),
    heading: Heading,
    markdown: Markdown("Markdown to add."),
  },
  { additionalProperties: false },
);

export const ReplaceBlockOp = Type.Object(
  {
    op: op(
      "replace_block",
      "Replace the paragraph or list item that carries a block id (` ^id` at its end). For an id on its own line " +
        "after a list, table or callout, that whole block is replaced and the id line stays.",
    ),
    block_id: Type.String({
      minLength: 1,
      maxLength: INPUT_LIMITS.nameChars,
      description: 'The block id, with or without "^" ("37066d" or "^37066d"); case-insensitive.',
    }),
    markdown: Markdown("The new block. The ` ^id` is re-attached at its end if you leave it out, so links to it keep working."),
  },
  { additionalProperties: false },
);

export const RenameHeadingOp = Type.Object(
  {
    op: op(
      "rename_heading",
      "Change a heading's text only (its #s or underline stay). Links to it in other notes ([[Note#Old]]) need rewriting; the result lists every rename.",
    ),
    from: Heading,
    to: Type.String({ minLength: 1, maxLength: INPUT_LIMITS.textLineChars, description: "The new heading text, without #s, on one line." }),
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
  { description: "One structural edit. Ops of one call apply in order; if any fails, nothing is written." },
);

export type PatchOp = Static<typeof PatchOpSchema>;
