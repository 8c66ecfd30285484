/**
 * JSON Canvas 1.0 as TypeBox schemas (docs/obsidian.md, JSON Canvas): the
 * shapes canvas ops take and return. Unknown keys are allowed everywhere because Obsidian declares
 * `[key: string]: any` "for forward compatibility" and round-trips them. No `default`s: a default
 * filled in by input handling would change the file on a no-op write.
 */
import { type Static, Type } from "@sinclair/typebox";
import { INPUT_LIMITS } from "../ops/schemas.ts";

export const CANVAS_COLOR_PATTERN = "^(?:[1-6]|#[0-9A-Fa-f]{3}(?:[0-9A-Fa-f]{3})?)$";

export const CanvasColor = Type.String({
  maxLength: 7,
  pattern: CANVAS_COLOR_PATTERN,
  description: 'Preset "1".."6" or hex "#FF0000".',
});
export const CanvasSide = Type.Union([Type.Literal("top"), Type.Literal("right"), Type.Literal("bottom"), Type.Literal("left")]);
const CanvasEnd = (description: string) => Type.Union([Type.Literal("none"), Type.Literal("arrow")], { description });

const open = { additionalProperties: true } as const;

const nodeBase = {
  id: Type.String({ minLength: 1, maxLength: INPUT_LIMITS.nameChars, description: "Unique id." }),
  x: Type.Integer(),
  y: Type.Integer(),
  width: Type.Integer(),
  height: Type.Integer(),
  color: Type.Optional(CanvasColor),
};

export const CanvasTextNode = Type.Object(
  { ...nodeBase, type: Type.Literal("text"), text: Type.String({ maxLength: INPUT_LIMITS.noteChars, description: "Markdown." }) },
  { ...open, title: "Text node" },
);
export const CanvasFileNode = Type.Object(
  {
    ...nodeBase,
    type: Type.Literal("file"),
    file: Type.String({ maxLength: INPUT_LIMITS.pathChars, description: "Vault path of the file shown." }),
    subpath: Type.Optional(Type.String({ maxLength: INPUT_LIMITS.textLineChars, pattern: "^#", description: "#Heading or #^blockid." })),
  },
  { ...open, title: "File node" },
);
export const CanvasLinkNode = Type.Object(
  { ...nodeBase, type: Type.Literal("link"), url: Type.String({ maxLength: INPUT_LIMITS.textLineChars }) },
  { ...open, title: "Link node" },
);
export const CanvasGroupNode = Type.Object(
  {
    ...nodeBase,
    type: Type.Literal("group"),
    label: Type.Optional(Type.String({ maxLength: INPUT_LIMITS.textLineChars })),
    background: Type.Optional(Type.String({ maxLength: INPUT_LIMITS.pathChars, description: "Vault path of a background image." })),
    backgroundStyle: Type.Optional(Type.Union([Type.Literal("cover"), Type.Literal("ratio"), Type.Literal("repeat")])),
  },
  { ...open, title: "Group node" },
);

/** The four node types exactly as the spec defines them (documentation, strict checks). */
export const CanvasNodeVariants = [CanvasTextNode, CanvasFileNode, CanvasLinkNode, CanvasGroupNode] as const;

/**
 * A node as ops take and return it: the generic fields required, each type's own fields optional.
 * A union of the four variants would be exact, but TypeBox can only say "Expected union value"
 * about a node that matches none, with no field named; validateCanvas enforces the per-type
 * rules instead and points at the field (`/nodes/3/text is required`).
 */
export const CanvasNodeSchema = Type.Object(
  {
    ...nodeBase,
    type: Type.Union([Type.Literal("text"), Type.Literal("file"), Type.Literal("link"), Type.Literal("group")]),
    text: Type.Optional(Type.String({ maxLength: INPUT_LIMITS.noteChars, description: "text node: Markdown." })),
    file: Type.Optional(Type.String({ maxLength: INPUT_LIMITS.pathChars, description: "file node: vault path." })),
    subpath: Type.Optional(Type.String({ maxLength: INPUT_LIMITS.textLineChars, pattern: "^#", description: "file node: #Heading or #^block." })),
    url: Type.Optional(Type.String({ maxLength: INPUT_LIMITS.textLineChars, description: "link node: URL." })),
    label: Type.Optional(Type.String({ maxLength: INPUT_LIMITS.textLineChars, description: "group: label." })),
    background: Type.Optional(Type.String({ maxLength: INPUT_LIMITS.pathChars, description: "group: image path." })),
    backgroundStyle: Type.Optional(Type.Union([Type.Literal("cover"), Type.Literal("ratio"), Type.Literal("repeat")], { description: "group." })),
  },
  { ...open, title: "CanvasNode", description: "A node." },
);

export const CanvasEdgeSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: INPUT_LIMITS.nameChars }),
    fromNode: Type.String({ maxLength: INPUT_LIMITS.nameChars, description: "Start node id." }),
    fromSide: Type.Optional(CanvasSide),
    fromEnd: Type.Optional(CanvasEnd("Default none.")),
    toNode: Type.String({ maxLength: INPUT_LIMITS.nameChars, description: "End node id." }),
    toSide: Type.Optional(CanvasSide),
    toEnd: Type.Optional(CanvasEnd("Default arrow.")),
    color: Type.Optional(CanvasColor),
    label: Type.Optional(Type.String({ maxLength: INPUT_LIMITS.textLineChars })),
  },
  { ...open, title: "CanvasEdge" },
);

export const CanvasSchema = Type.Object(
  {
    nodes: Type.Optional(Type.Array(CanvasNodeSchema, { maxItems: INPUT_LIMITS.canvasNodes })),
    edges: Type.Optional(Type.Array(CanvasEdgeSchema, { maxItems: INPUT_LIMITS.canvasEdges })),
  },
  { ...open, title: "JSON Canvas 1.0", description: "Nodes and edges." },
);

export type CanvasDoc = Static<typeof CanvasSchema>;

/** Fields an update may set; `null` removes an optional field. */
const FieldSet = Type.Record(Type.String(), Type.Unknown(), {
  maxProperties: INPUT_LIMITS.properties,
  description: "Fields to set; null removes one.",
});
const Id = Type.String({ minLength: 1, maxLength: INPUT_LIMITS.nameChars });

export const CanvasPatchOpSchema = Type.Union([
  Type.Object({ op: Type.Literal("add_node"), node: CanvasNodeSchema }, { additionalProperties: false }),
  Type.Object({ op: Type.Literal("update_node"), id: Id, set: FieldSet }, { additionalProperties: false }),
  Type.Object({ op: Type.Literal("remove_node"), id: Id }, { additionalProperties: false, description: "Also removes its edges." }),
  Type.Object({ op: Type.Literal("add_edge"), edge: CanvasEdgeSchema }, { additionalProperties: false }),
  Type.Object({ op: Type.Literal("update_edge"), id: Id, set: FieldSet }, { additionalProperties: false }),
  Type.Object({ op: Type.Literal("remove_edge"), id: Id }, { additionalProperties: false }),
]);
export type CanvasPatchOp = Static<typeof CanvasPatchOpSchema>;
