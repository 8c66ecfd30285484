import { IndxError } from "../../../core/errors.ts";
import { noteRead } from "../../../notes/ops.ts";
import type { OpContext } from "../../../ops/context.ts";
import { invoke } from "../../../ops/invoke.ts";
import type { Warning } from "../../../ops/schemas.ts";
import { estimateTokens } from "../../../providers/tokens.ts";
import { type Citation, uniqueCitations } from "../../citations.ts";
import { modelSession, runAi } from "../../invocation.ts";
import { type Passage, passagesForPaths, renderPassages } from "../../passages.ts";
import { PROMPT_VERSION } from "../../prompts.ts";
import { rationalesDropped, SegmentGrounder, supported } from "../../segments.ts";
import type { ModelSession } from "../../session.ts";
import type { AiOpName } from "../catalogue.ts";
import { notesInScope, pinned, requireFits, streamText, uniqueWarnings } from "../grounded.ts";
import { MOC_SYSTEM, MocReply, TopicReply } from "./prompt.ts";
import { linkTarget, renderTree, type TocInput, type TocNode, type TocOutput } from "./shape.ts";

/** Tokens of each note's opening passage the model sees when titling groups or describing notes. */
const ITEM_TOKENS = 200;

interface Item {
  path: string;
  title: string;
  passage: Passage;
}

/**
 * A map of content: notes grouped by folder, tag or frontmatter key (decided here, from the
 * notes) or by topic (decided by the model); the model titles the groups and, when asked,
 * describes each note with a verified citation.
 */
export async function mapOfContent(ctx: OpContext, input: TocInput): Promise<TocOutput> {
  if (!input.scope) throw new IndxError("validation_failed", "mode moc needs scope.", { field: "scope" });
  const groupBy = input.group_by ?? "folder";
  if (groupBy === "frontmatter" && !input.group_by_key)
    throw new IndxError("validation_failed", "group_by frontmatter needs group_by_key.", { field: "group_by_key" });
  const warnings: Warning[] = [];
  const paths = await notesInScope(ctx, input.scope, warnings);
  const items = openingPassages(ctx, paths);
  const maxGroups = input.max_groups ?? 20;
  const maxPerGroup = input.max_per_group ?? 50;
  return runAi({
    op: "toc" satisfies AiOpName,
    ctx,
    input,
    scope: pinned(items.map((i) => i.passage)),
    promptVersion: PROMPT_VERSION,
    usesModel: true,
    async produce(session) {
      const s = modelSession(session);
      const max = ctx.ai.settings().maxInputTokens;
      const overhead = estimateTokens(MOC_SYSTEM) + 200;
      // Topic grouping shows the model every note; titling shows it the notes kept per group.
      if (groupBy === "topic") requireFits(overhead + items.reduce((n, i) => n + i.passage.tokens, 0), max);
      const groups = groupBy === "topic" ? await topicGroups(s, items) : await keyedGroups(ctx, items, groupBy, input.group_by_key);
      const shown = [...groups]
        .sort(([a, x], [b, y]) => y.length - x.length || (a < b ? -1 : 1))
        .slice(0, maxGroups)
        .map(([key, members]) => ({ key, members: members.slice(0, maxPerGroup) }));
      requireFits(overhead + shown.reduce((n, g) => n + g.members.reduce((m, i) => m + i.passage.tokens, 0), 0), max);
      const reply = await s.json({
        system: MOC_SYSTEM,
        messages: [{ role: "user", content: mocPrompt(shown, input.include_summaries === true) }],
        schema: MocReply,
      });
      const byId = new Map(items.map((i) => [i.passage.id, i.passage]));
      const grounder = new SegmentGrounder(ctx, byId, false);
      const titles = new Map(reply.groups.map((g) => [g.key, g]));
      const citations: Citation[] = [];
      const tree: TocNode[] = [];
      for (const group of shown) {
        const answered = titles.get(group.key);
        const described = new Map<string, string>();
        for (const [i, item] of (answered?.items ?? []).entries()) {
          const passage = byId.get(item.passage.trim().toUpperCase());
          if (!passage) continue;
          const kept = await grounder.ground(`${group.key}/${i}`, { text: item.description, citations: item.citations });
          if (!kept) continue;
          described.set(passage.path, kept.text);
          citations.push(...kept.citations);
        }
        tree.push({
          title: groundedTitle(answered?.title, group.members, group.key, warnings),
          children: group.members.map((m) => {
            const description = described.get(m.path);
            return { title: m.title, path: m.path, ...(description !== undefined ? { description } : {}) };
          }),
        });
      }
      warnings.push(...uniqueWarnings(grounder.warnings), ...grounder.droppedWarning("description"));
      const link = (n: TocNode) => (n.path && input.include_links !== false ? `[[${linkTarget(n.path)}|${n.title}]]` : n.title);
      const heading = input.title ? `# ${input.title}\n\n` : "";
      const markdown = heading + tree.map((g) => `## ${headingText(g.title)}\n\n${renderTree(g.children ?? [], link, input.style ?? "compact")}`).join("\n\n");
      const unique = uniqueCitations(citations);
      streamText(ctx, markdown, unique);
      return {
        toc_markdown: markdown,
        toc_tree: tree,
        scope_resolved: { paths, total_tokens: items.reduce((n, i) => n + i.passage.tokens, 0) },
        citations: unique,
        usage: s.usage,
        warnings,
      };
    },
  });
}

/** Each note with its opening passage (what the model reads of it), numbered across the scope. */
function openingPassages(ctx: OpContext, paths: readonly string[]): Item[] {
  const first = new Map<string, Passage>();
  for (const p of passagesForPaths(ctx, paths)) if (!first.has(p.path)) first.set(p.path, p);
  return paths.flatMap((path, i) => {
    const p = first.get(path);
    if (!p) return [];
    const text = clip(p.text, ITEM_TOKENS * 3);
    const passage = { ...p, id: `P${i + 1}`, text, tokens: estimateTokens(text) };
    return [{ path, title: path.slice(path.lastIndexOf("/") + 1).replace(/\.md$/i, ""), passage }];
  });
}

const clip = (text: string, chars: number) => (text.length <= chars ? text : `${text.slice(0, chars)}…`);

/** Groups decided from the notes themselves: a note sits in every group its tags or list values name. */
async function keyedGroups(ctx: OpContext, items: Item[], by: "tag" | "folder" | "frontmatter", key: string | undefined): Promise<Map<string, Item[]>> {
  const groups = new Map<string, Item[]>();
  const add = (k: string, item: Item) => {
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  };
  for (const item of items) {
    if (by === "folder") {
      add(item.path.includes("/") ? item.path.slice(0, item.path.lastIndexOf("/")) : "(vault root)", item);
      continue;
    }
    const note = await invoke(noteRead, ctx, { path: item.path, include: by === "tag" ? ["tags"] : ["frontmatter"] });
    // group_by frontmatter without group_by_key is refused before any note is read.
    const raw = by === "tag" ? note.tags : key === undefined ? undefined : note.frontmatter?.[key];
    const values = (Array.isArray(raw) ? raw : raw === undefined || raw === null || raw === "" ? [] : [raw]).map((v) => (by === "tag" ? `#${v}` : String(v)));
    if (values.length === 0) add(by === "tag" ? "(untagged)" : `(no ${key})`, item);
    for (const v of new Set(values)) add(v, item);
  }
  return groups;
}

/** Topic groups: the model assigns notes (by passage id) to topics it names; unassigned notes go to "Other". */
async function topicGroups(session: ModelSession, items: Item[]): Promise<Map<string, Item[]>> {
  const reply = await session.json({
    system: `${MOC_SYSTEM} Group the notes into topics: each passage id in exactly one topic.`,
    messages: [{ role: "user", content: renderPassages(items.map((i) => i.passage)) }],
    schema: TopicReply,
  });
  const byId = new Map(items.map((i) => [i.passage.id, i]));
  const groups = new Map<string, Item[]>();
  const placed = new Set<string>();
  for (const topic of reply.topics) {
    const members = topic.passages.map((id) => byId.get(id.trim().toUpperCase())).filter((i): i is Item => i !== undefined && !placed.has(i.path));
    if (!members.length) continue;
    for (const m of members) placed.add(m.path);
    groups.set(groundedTitle(topic.title, members, `Topic ${groups.size + 1}`, []), members);
  }
  const rest = items.filter((i) => !placed.has(i.path));
  if (rest.length) groups.set("Other", rest);
  return groups;
}

function mocPrompt(groups: { key: string; members: Item[] }[], describe: boolean): string {
  const blocks = groups.map((g) => `<group key="${g.key.replaceAll('"', "&quot;")}">\n${renderPassages(g.members.map((m) => m.passage))}\n</group>`);
  return `${blocks.join("\n")}\n\nGive each group (by its key) a title.${describe ? " Describe each passage's note in one line, with citations." : " Leave items empty."}`;
}

/**
 * A group's title as a heading's text that reads as words, not as a tag: a title such as "#ops"
 * (a group keyed by tag) would make the map note tag itself with every tag it lists, so the '#'
 * that would start a tag is left out (docs/decisions.md, "A MOC's headings are not tags").
 */
function headingText(title: string): string {
  return title.replace(/(^|\s)#+(?=[^\s#])/g, "$1").trim() || title.replace(/#/g, "").trim() || "Untitled";
}

/**
 * A group's title is prose the model wrote: kept when its words come from the notes it names
 * (src/ai/segments.ts, as any claim), else the group's own key stands in (docs/decisions.md,
 * "Claim-level grounding").
 */
function groundedTitle(title: string | undefined, members: readonly Item[], fallback: string, warnings: Warning[]): string {
  const t = title?.replace(/\s+/g, " ").trim();
  if (!t) return fallback;
  const source = `${fallback}\n${members.map((m) => `${m.title}\n${m.passage.text}`).join("\n")}`;
  if (supported(t, source, false)) return t;
  warnings.push(...rationalesDropped(1).map((w) => ({ ...w, message: "A group title not drawn from its notes was replaced by the group's key." })));
  return fallback;
}
