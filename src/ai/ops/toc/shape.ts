import { type Static, Type } from "@sinclair/typebox";
import { INPUT_LIMITS, VaultPath, Warning as WarningSchema } from "../../../ops/schemas.ts";
import { AiScope } from "../../scope.ts";
import { AiUsageSchema, CallControls, Citations, ScopeResolved } from "../common.ts";

/** ai_toc's input, output and tree, shared by its two modes (toc-ops.ts for a note, moc.ts for a scope). */
export interface TocNode {
  title: string;
  path?: string;
  anchor?: string;
  description?: string;
  children?: TocNode[];
}

/** Recursive node schema: children are nodes. */
const TocNodeSchema = Type.Recursive(
  (Self) =>
    Type.Object({
      title: Type.String(),
      path: Type.Optional(Type.String({ description: "The note (map of content)." })),
      anchor: Type.Optional(Type.String({ description: "The heading, as a link anchor (one note)." })),
      description: Type.Optional(Type.String()),
      children: Type.Optional(Type.Array(Self)),
    }),
  { $id: "TocNode" },
);

export const Input = Type.Object(
  {
    mode: Type.Union([Type.Literal("note"), Type.Literal("moc")], {
      description: "note: one note's contents; moc: a map of content of a scope.",
    }),
    path: Type.Optional({ ...VaultPath, description: "note mode: the note." }),
    depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 6, default: 3, description: "note mode: deepest level." })),
    include_descriptions: Type.Optional(Type.Boolean({ default: false, description: "note mode: a line per section (model)." })),
    include_links: Type.Optional(Type.Boolean({ default: true, description: "Entries as wikilinks." })),
    style: Type.Optional(Type.Union([Type.Literal("compact"), Type.Literal("expanded")], { default: "compact", description: "note mode: layout." })),
    scope: Type.Optional(AiScope),
    group_by: Type.Optional(
      Type.Union([Type.Literal("tag"), Type.Literal("folder"), Type.Literal("topic"), Type.Literal("frontmatter")], {
        default: "folder",
        description: "moc: grouping.",
      }),
    ),
    group_by_key: Type.Optional(Type.String({ minLength: 1, maxLength: INPUT_LIMITS.nameChars, description: "moc: key for group_by frontmatter." })),
    max_groups: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: "moc: max groups." })),
    max_per_group: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: "moc: max notes per group." })),
    include_summaries: Type.Optional(Type.Boolean({ default: false, description: "moc: a line per note." })),
    title: Type.Optional(Type.String({ maxLength: 200, description: "moc: title." })),
    cite: Type.Optional(Type.Boolean({ default: true, description: "Keep only cited descriptions." })),
    write: Type.Optional(
      Type.Object(
        {
          path: VaultPath,
          if_not_exists: Type.Optional(Type.Boolean({ description: "Fail if the note exists." })),
          // An empty If-Match is refused (as note_write refuses it), never read as "no condition".
          if_match: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Replace only this version." })),
          frontmatter: Type.Optional(Type.Record(Type.String({ maxLength: INPUT_LIMITS.nameChars }), Type.Unknown(), { maxProperties: 100 })),
        },
        { additionalProperties: false, description: "Also save it as a note (vault:write)." },
      ),
    ),
    ...CallControls,
  },
  { additionalProperties: false },
);
export type TocInput = Static<typeof Input>;

export const Output = Type.Object({
  toc_markdown: Type.String({ description: "Ready to paste into a note." }),
  toc_tree: Type.Array(TocNodeSchema),
  scope_resolved: ScopeResolved,
  written: Type.Optional(Type.Object({ path: Type.String(), etag: Type.String() })),
  citations: Citations,
  usage: AiUsageSchema,
  warnings: Type.Array(WarningSchema),
});
export type TocOutput = Static<typeof Output>;

/** Nested Markdown list; compact puts a description after the entry, expanded on its own line. */
export function renderTree(nodes: TocNode[], label: (n: TocNode) => string, style: "compact" | "expanded", indent = ""): string {
  return nodes
    .map((n) => {
      const desc = n.description ? (style === "compact" ? ` — ${n.description}` : `\n${indent}  ${n.description}`) : "";
      const children = n.children?.length ? `\n${renderTree(n.children, label, style, `${indent}  `)}` : "";
      return `${indent}- ${label(n)}${desc}${children}`;
    })
    .join("\n");
}

/** A wikilink target that always resolves: the vault path without its .md extension. */
export const linkTarget = (path: string) => path.replace(/\.md$/i, "");
