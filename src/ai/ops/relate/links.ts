import { IndxError } from "../../../core/errors.ts";
import { newLinkText } from "../../../links/link-text.ts";
import { headingKey } from "../../../markdown/headings.ts";
import { noteRead } from "../../../notes/ops.ts";
import type { OpContext } from "../../../ops/context.ts";
import { invoke } from "../../../ops/invoke.ts";
import type { PatchOp } from "../../../patch/schema.ts";
import { LinkResolver } from "../../../vault/link-resolver.ts";
import { type ObsidianAppSettings, readObsidianApp } from "../../../vault/obsidian-app.ts";
import type { ProposedPatch } from "../apply/proposed-patch.ts";
import type { RelatedEdge } from "./classify.ts";

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
    const links = related.flatMap((e) => {
      const text = linkTo(e.dst_path, src, app, resolver);
      return text ? [{ edge: e, text }] : [];
    });
    if (links.length === 0) continue;
    const items = `${links.map((l) => `- ${l.text}`).join("\n")}\n`;
    const sections = (note.outline ?? []).filter((h) => headingKey(h.text) === headingKey(SECTION)).length;
    const op: PatchOp =
      sections === 0
        ? { op: "append_body", markdown: `\n## ${SECTION}\n\n${items}` }
        : { op: "append_to_section", heading: sections === 1 ? SECTION : `${SECTION}[1]`, markdown: items };
    patches.push({
      path: src,
      if_match: note.etag,
      ops: [op],
      reason: `Links ${links.length === 1 ? "a related note" : `${links.length} related notes`} it does not link yet: ${links.map((l) => describe(l.edge)).join("; ")}.`,
      related_to: links.map((l) => l.edge.dst_path),
    });
  }
  return patches;
}

const describe = (e: RelatedEdge) =>
  `${e.dst_path} (${e.relation ?? "similar"}${e.confidence !== undefined ? `, confidence ${e.confidence}` : `, similarity ${e.similarity}`})`;

/** The link text, or null for a note no link can name (a `#` in its path): it gets no draft. */
function linkTo(target: string, src: string, app: ObsidianAppSettings, resolver: LinkResolver): string | null {
  try {
    return newLinkText(target, src, app, resolver);
  } catch (err) {
    if (err instanceof IndxError && err.code === "validation_failed") return null;
    throw err;
  }
}
