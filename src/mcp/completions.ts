import type { CompleteRequest, CompleteResult } from "@modelcontextprotocol/sdk/types.js";
import { noteList } from "../notes/ops.ts";
import type { OpContext } from "../ops/context.ts";
import { invoke } from "../ops/invoke.ts";
import { tagList } from "../tags/ops.ts";
import { isoDate, promptArgumentKind } from "./prompts.ts";

/**
 * completion/complete: values for prompt arguments (dates, true/false) and resource template
 * variables (note paths by prefix from the index, tags from the tag list). A prompt, template or
 * argument that has nothing to offer completes to an empty list rather than an error, so a client
 * that asks for every field it shows never has to special-case one.
 */

type Kind = "date" | "boolean" | "path" | "tag";

/** The MCP spec caps one completion answer at 100 values. */
const MAX_VALUES = 100;

const TEMPLATE_VARIABLES: Record<string, Record<string, Kind>> = {
  "vault://{+path}": { path: "path" },
  "vault://graph/backlinks/{+path}": { path: "path" },
  "vault://graph/forward/{+path}": { path: "path" },
  "vault://search{?q,mode,limit,path_glob,tag}": { tag: "tag" },
};

type Completion = CompleteResult["completion"];

export async function complete(ctx: OpContext, params: CompleteRequest["params"]): Promise<CompleteResult> {
  const { ref, argument } = params;
  const kind = ref.type === "ref/prompt" ? promptArgumentKind(ref.name, argument.name) : TEMPLATE_VARIABLES[ref.uri]?.[argument.name];
  return { completion: kind ? await COMPLETERS[kind](ctx, argument.value) : { values: [], total: 0, hasMore: false } };
}

const COMPLETERS: Record<Kind, (ctx: OpContext, prefix: string) => Promise<Completion> | Completion> = {
  boolean: (_ctx, prefix) => fromList(["true", "false"], prefix),
  date: completeDate,
  path: completePath,
  tag: completeTag,
};

function fromList(candidates: readonly string[], prefix: string): Completion {
  const values = [...new Set(candidates)].filter((v) => v.startsWith(prefix));
  return { values: values.slice(0, MAX_VALUES), total: values.length, hasMore: values.length > MAX_VALUES };
}

/** Today, yesterday, then the days of dated notes (Daily/2026-01-06.md), most recently changed first. */
async function completeDate(ctx: OpContext, prefix: string): Promise<Completion> {
  const now = new Date();
  const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1);
  const dated = await invoke(noteList, ctx, {
    path_glob: "**/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].md",
    sort: "mtime",
    limit: MAX_VALUES,
  });
  const days = dated.notes.flatMap((n) => /(\d{4}-\d{2}-\d{2})\.md$/.exec(n.path)?.[1] ?? []);
  return fromList([isoDate(now), isoDate(yesterday), ...days], prefix.trim());
}

const escapeGlob = (s: string) => s.replace(/[\\*?[\]{}]/g, (c) => `\\${c}`);

async function completePath(ctx: OpContext, prefix: string): Promise<Completion> {
  const page = await invoke(noteList, ctx, { path_glob: `${escapeGlob(prefix)}**`, limit: MAX_VALUES });
  return { values: page.notes.map((n) => n.path), total: page.total, hasMore: page.next_cursor !== null };
}

/** Tags as the tag list spells them, most used first; a leading '#' and case are ignored. */
async function completeTag(ctx: OpContext, prefix: string): Promise<Completion> {
  const wanted = prefix.trim().replace(/^#/, "").toLowerCase();
  const { tags } = await invoke(tagList, ctx, {});
  const values = tags.map((t) => t.tag).filter((t) => t.toLowerCase().startsWith(wanted));
  return { values: values.slice(0, MAX_VALUES), total: values.length, hasMore: values.length > MAX_VALUES };
}
