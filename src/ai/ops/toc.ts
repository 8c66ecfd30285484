import { type Static, Type } from "@sinclair/typebox";
import { IndxError } from "../../core/errors.ts";
import { parseNote } from "../../markdown/parse.ts";
import { readNote } from "../../notes/read.ts";
import { noteWrite } from "../../notes/write-ops.ts";
import type { OpContext } from "../../ops/context.ts";
import { defineOp } from "../../ops/define.ts";
import { invoke } from "../../ops/invoke.ts";
import { INPUT_LIMITS, VaultPath, type Warning, Warning as WarningSchema } from "../../ops/schemas.ts";
import { type Citation, uniqueCitations, verifyCitations } from "../citations.ts";
import { runAi } from "../invocation.ts";
import { passagesForPaths, renderPassages } from "../passages.ts";
import { PROMPT_VERSION, TOC_SYSTEM, TocDescriptionsReply } from "../prompts.ts";
import { AiScope } from "../scope.ts";
import { AiUsageSchema, CallControls, Citations, ScopeResolved } from "./common.ts";
import { excludedWarning, pinned, streamCitations } from "./grounded.ts";
import { mapOfContent } from "./moc.ts";

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

const Input = Type.Object(
  {
    mode: Type.Union([Type.Literal("note"), Type.Literal("moc")], {
      description: "note: the table of contents of one note (no model unless include_descriptions); moc: a map of content over a scope.",
    }),
    path: Type.Optional({ ...VaultPath, description: "note mode: the note." }),
    depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 6, default: 3, description: "note mode: deepest heading level listed." })),
    include_descriptions: Type.Optional(Type.Boolean({ default: false, description: "note mode: one grounded line per section (calls the model)." })),
    include_links: Type.Optional(Type.Boolean({ default: true, description: "Entries are wikilinks." })),
    style: Type.Optional(Type.Union([Type.Literal("compact"), Type.Literal("expanded")], { default: "compact" })),
    scope: Type.Optional(AiScope),
    group_by: Type.Optional(
      Type.Union([Type.Literal("tag"), Type.Literal("folder"), Type.Literal("topic"), Type.Literal("frontmatter")], {
        default: "folder",
        description: "moc mode: how notes are grouped (topic asks the model).",
      }),
    ),
    group_by_key: Type.Optional(Type.String({ minLength: 1, maxLength: INPUT_LIMITS.nameChars, description: "moc mode, group_by frontmatter: the key." })),
    max_groups: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    max_per_group: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    include_summaries: Type.Optional(Type.Boolean({ default: false, description: "moc mode: a grounded one-line description per note." })),
    title: Type.Optional(Type.String({ maxLength: 200, description: "moc mode: the map's title." })),
    cite: Type.Optional(Type.Boolean({ default: true, description: "Keep only descriptions backed by a verified citation." })),
    write: Type.Optional(
      Type.Object(
        {
          path: VaultPath,
          if_not_exists: Type.Optional(Type.Boolean({ description: "Fail with already_exists rather than replace." })),
          // An empty If-Match is refused (as note_write refuses it), never read as "no condition".
          if_match: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Replace only this version of the note." })),
          frontmatter: Type.Optional(Type.Record(Type.String({ maxLength: INPUT_LIMITS.nameChars }), Type.Unknown(), { maxProperties: 100 })),
        },
        { additionalProperties: false, description: "Also write the result as a note (needs vault:write), through the standard write pipeline." },
      ),
    ),
    ...CallControls,
  },
  { additionalProperties: false },
);
type Input = Static<typeof Input>;

const Output = Type.Object({
  toc_markdown: Type.String({ description: "Ready to paste into a note." }),
  toc_tree: Type.Array(TocNodeSchema),
  scope_resolved: ScopeResolved,
  written: Type.Optional(Type.Object({ path: Type.String(), etag: Type.String() })),
  citations: Citations,
  usage: AiUsageSchema,
  warnings: Type.Array(WarningSchema),
});
export type TocOutput = Static<typeof Output>;

export const aiToc = defineOp({
  name: "ai_toc",
  title: "Table of contents or map of content",
  description: "A note's table of contents from its headings, or a map of content over a scope with groups the model titles; `write` saves it as a note.",
  scope: "vault:read",
  // With `write` it replaces a note; without, it only reads.
  safe: false,
  destructive: true,
  ai: { needs: "chat" },
  writes: { when: (input) => input.write !== undefined, fields: ["write"] },
  input: Input,
  output: Output,
  async run(ctx, input): Promise<TocOutput> {
    // A note's table of contents from its headings needs no model; descriptions and maps of content do.
    if (input.mode === "moc" || input.include_descriptions === true) ctx.ai.chat();
    const result = input.mode === "note" ? await noteToc(ctx, input) : await mapOfContent(ctx, input);
    if (!input.write) return result;
    const written = await invoke(noteWrite, ctx, {
      path: input.write.path,
      body: result.toc_markdown,
      ...(input.write.frontmatter ? { frontmatter: input.write.frontmatter } : {}),
      ...(input.write.if_match !== undefined ? { if_match: input.write.if_match } : {}),
      ...(input.write.if_not_exists ? { if_not_exists: true } : {}),
    });
    return { ...result, written: { path: written.path, etag: written.etag } };
  },
  summary: (o) => `${o.toc_tree.length} top-level entr${o.toc_tree.length === 1 ? "y" : "ies"}${o.written ? `; wrote ${o.written.path}` : ""}`,
});

/** One note's table of contents: its headings to `depth`, linked; the model only writes descriptions when asked. */
async function noteToc(ctx: OpContext, input: Input): Promise<TocOutput> {
  if (!input.path) throw new IndxError("validation_failed", "mode note needs path.", { field: "path" });
  const note = readNote(ctx.vault, input.path, { allowLarge: true });
  const depth = input.depth ?? 3;
  const headings = parseNote(note.text)
    .headings.filter((h) => h.level <= depth)
    .map((h) => ({ ...h, text: h.text.trim() }))
    .filter((h) => h.text !== "");
  const describe = input.include_descriptions === true;
  const warnings: Warning[] = [];
  const allowed = ctx.ai.globs().allows(note.path);
  if (describe && !allowed) warnings.push(excludedWarning(1));
  const passages = describe && allowed ? passagesForPaths(ctx, [note.path]) : [];
  return runAi({
    op: "toc",
    ctx,
    input,
    scope: passages.length ? pinned(passages) : [{ path: note.path, etag: note.etag }],
    promptVersion: PROMPT_VERSION,
    usesModel: passages.length > 0,
    async produce(session) {
      const descriptions = new Map<number, string>();
      let citations: Citation[] = [];
      if (session && passages.length) {
        const reply = await session.json({
          system: TOC_SYSTEM,
          messages: [{ role: "user", content: `${renderPassages(passages)}\n\nDescribe each passage's section.` }],
          schema: TocDescriptionsReply,
        });
        const byId = new Map(passages.map((p) => [p.id, p]));
        for (const section of reply.sections) {
          const passage = byId.get(section.passage.trim().toUpperCase());
          if (!passage) continue;
          const v = await verifyCitations(ctx, byId, section.citations);
          warnings.push(...v.warnings);
          if (v.citations.length === 0 && input.cite !== false) continue;
          const heading = headings.find((h) => h.line >= passage.startLine && h.line <= passage.endLine);
          if (heading) descriptions.set(heading.line, section.description.trim());
          citations.push(...v.citations);
        }
        citations = uniqueCitations(citations);
        streamCitations(ctx, citations);
      }
      const tree = nest(
        headings.map((h) => ({
          level: h.level,
          node: { title: h.text, anchor: h.text, ...(descriptions.has(h.line) ? { description: descriptions.get(h.line)! } : {}) },
        })),
      );
      const link = (n: TocNode) => (input.include_links === false ? n.title : `[[${linkTarget(note.path)}#${n.anchor}|${n.title}]]`);
      return {
        toc_markdown: renderTree(tree, link, input.style ?? "compact"),
        toc_tree: tree,
        scope_resolved: { paths: [note.path], total_tokens: passages.reduce((n, p) => n + p.tokens, 0) },
        citations,
        usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0 },
        warnings,
      };
    },
  });
}

/** Headings by level into a tree: a heading is the child of the nearest earlier heading of a lower level. */
function nest(items: { level: number; node: TocNode }[]): TocNode[] {
  const roots: TocNode[] = [];
  const stack: { level: number; node: TocNode }[] = [];
  for (const item of items) {
    while (stack.length && stack[stack.length - 1]!.level >= item.level) stack.pop();
    const parent = stack[stack.length - 1];
    if (parent) (parent.node.children ??= []).push(item.node);
    else roots.push(item.node);
    stack.push(item);
  }
  return roots;
}

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

export type { Input as TocInput };
