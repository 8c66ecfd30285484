import { IndxError } from "../../../core/errors.ts";
import { parseNote } from "../../../markdown/parse.ts";
import { noteWrite } from "../../../notes/write-ops.ts";
import type { OpContext } from "../../../ops/context.ts";
import { defineOp } from "../../../ops/define.ts";
import { invoke } from "../../../ops/invoke.ts";
import type { Warning } from "../../../ops/schemas.ts";
import { readNote } from "../../../vault/read.ts";
import { type Citation, uniqueCitations } from "../../citations.ts";
import { runAi } from "../../invocation.ts";
import { passagesForPaths, renderPassages } from "../../passages.ts";
import { PROMPT_VERSION } from "../../prompts.ts";
import { SegmentGrounder } from "../../segments.ts";
import type { AiOpName } from "../catalogue.ts";
import { excludedWarning, pinned, streamText, uniqueWarnings } from "../grounded.ts";
import { mapOfContent } from "./moc.ts";
import { TOC_SYSTEM, TocDescriptionsReply } from "./prompt.ts";
import { Input, linkTarget, Output, renderTree, type TocInput, type TocNode, type TocOutput } from "./shape.ts";

export const aiToc = defineOp({
  name: "ai_toc",
  errors: ["path_invalid", "not_found", "patch_target_not_found", "encoding_unsupported", "idempotency_key_reused", "ai_grounding_failed"],
  title: "Table of contents or map of content",
  description: "A note's table of contents, or a map of content of notes.",
  scope: "vault:read",
  // With `write` it replaces a note; without, it only reads.
  safe: false,
  destructive: true,
  // A note's table of contents from its headings needs no model; descriptions and maps of content do.
  ai: { needs: "chat", when: (input) => input.mode === "moc" || input.include_descriptions === true },
  writes: { when: (input) => input.write !== undefined, fields: ["write"] },
  input: Input,
  output: Output,
  async run(ctx, input): Promise<TocOutput> {
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
async function noteToc(ctx: OpContext, input: TocInput): Promise<TocOutput> {
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
    op: "toc" satisfies AiOpName,
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
        const grounder = new SegmentGrounder(ctx, byId, false);
        for (const [i, section] of reply.sections.entries()) {
          const passage = byId.get(section.passage.trim().toUpperCase());
          if (!passage) continue;
          const kept = await grounder.ground(`sections/${i}`, { text: section.description, citations: section.citations });
          if (!kept) continue;
          const heading = headings.find((h) => h.line >= passage.startLine && h.line <= passage.endLine);
          if (heading) descriptions.set(heading.line, kept.text);
          citations.push(...kept.citations);
        }
        citations = uniqueCitations(citations);
        warnings.push(...uniqueWarnings(grounder.warnings), ...grounder.droppedWarning("description"));
      }
      const tree = nest(
        headings.map((h) => {
          const description = descriptions.get(h.line);
          return { level: h.level, node: { title: h.text, anchor: h.text, ...(description !== undefined ? { description } : {}) } };
        }),
      );
      const link = (n: TocNode) => (input.include_links === false ? n.title : `[[${linkTarget(note.path)}#${n.anchor}|${n.title}]]`);
      const markdown = renderTree(tree, link, input.style ?? "compact");
      streamText(ctx, markdown, citations);
      return {
        toc_markdown: markdown,
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
    let parent = stack.at(-1);
    while (parent && parent.level >= item.level) {
      stack.pop();
      parent = stack.at(-1);
    }
    if (parent) (parent.node.children ??= []).push(item.node);
    else roots.push(item.node);
    stack.push(item);
  }
  return roots;
}
