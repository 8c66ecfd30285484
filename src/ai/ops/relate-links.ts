import { newLinkText } from "../../links/new-link.ts";
import { LinkResolver } from "../../links/resolve.ts";
import { headingKey } from "../../markdown/headings.ts";
import { noteRead } from "../../notes/ops.ts";
import type { OpContext } from "../../ops/context.ts";
import { invoke } from "../../ops/invoke.ts";
import type { PatchOp } from "../../patch/schema.ts";
import { readObsidianApp } from "../../vault/obsidian-app.ts";
import type { ProposedPatch } from "../proposed-patch.ts";
import type { RelatedEdge } from "./relate-classify.ts";

/** The section proposed links go under (docs/decisions.md, "ai_relate"). */
const SECTION = "Related";

/**
 * Draft note_patch calls that link each source to the notes it is related to and does not link
 * yet: one patch per source, a list item per link, in the vault's link format (wikilink or, with
 * useMarkdownLinks, Markdown; the path in newLinkFormat). The links go at the end of the note's
 * "Related" section, or into a new one at the end of the note. Nothing is written here.
 */
export async function proposeLinks(ctx: OpContext, edges: readonly RelatedEdge[], linked: (src: string, dst: string) => boolean): Promise<ProposedPatch[]> {
  const targets = new Map<string, RelatedEdge[]>();
  for (const e of edges) {
    if (linked(e.src_path, e.dst_path)) continue;
    const list = targets.get(e.src_path) ?? [];
    if (!list.some((x) => x.dst_path === e.dst_path)) list.push(e);
    targets.set(e.src_path, list);
  }
  if (targets.size === 0) return [];
  const app = readObsidianApp(ctx.vault.root);
  const resolver = new LinkResolver(ctx.index.files.paths());
  const patches: ProposedPatch[] = [];
  for (const [src, related] of [...targets].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const note = await invoke(noteRead, ctx, { path: src, include: ["outline"] });
    const items = `${related.map((e) => `- ${newLinkText(e.dst_path, src, app, resolver)}`).join("\n")}\n`;
    const sections = (note.outline ?? []).filter((h) => headingKey(h.text) === headingKey(SECTION)).length;
    const op: PatchOp =
      sections === 0
        ? { op: "append_body", markdown: `\n## ${SECTION}\n\n${items}` }
        : { op: "append_to_section", heading: sections === 1 ? SECTION : `${SECTION}[1]`, markdown: items };
    patches.push({
      path: src,
      if_match: note.etag,
      ops: [op],
      reason: `Links ${related.length === 1 ? "a related note" : `${related.length} related notes`} it does not link yet: ${related.map(describe).join("; ")}.`,
      related_to: related.map((e) => e.dst_path),
    });
  }
  return patches;
}

const describe = (e: RelatedEdge) =>
  `${e.dst_path} (${e.relation ?? "similar"}${e.confidence !== undefined ? `, confidence ${e.confidence}` : `, similarity ${e.similarity}`})`;
