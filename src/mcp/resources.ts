import type { ListResourcesResult, ReadResourceResult, Resource, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import { baseQuery } from "../bases/ops.ts";
import { IndxError } from "../core/errors.ts";
import { linkBacklinks, linkForward } from "../links/ops.ts";
import { noteExists, noteList, noteRead } from "../notes/ops.ts";
import { attachmentGet } from "../notes/retrieval-ops.ts";
import type { OpContext } from "../ops/context.ts";
import { invoke } from "../ops/invoke.ts";
import { vaultSearch } from "../search/ops.ts";
import { tagList } from "../tags/ops.ts";
import { readAiResource } from "./ai-resources.ts";
import { isAiUri } from "./ai-uris.ts";
import { GRAPH_PAGE_BYTES, graphPage } from "./graph-page.ts";
import type { McpHub } from "./hub.ts";
import { parseVaultUri, vaultUri } from "./uris.ts";

/**
 * Resources (docs/mcp.md, Resources): the vault as browsable, subscribable views. Every read is an
 * operation run through invoke(); this module only maps URIs to inputs and outputs to contents.
 */

const PAGE = 200;
const JSON_MIME = "application/json";

const TAGS: Resource = {
  uri: "vault://tags",
  name: "tags",
  title: "Tag index",
  description: "Every tag with the number of notes that carry it (JSON).",
  mimeType: JSON_MIME,
};

const GRAPH: Resource = {
  uri: "vault://graph",
  name: "graph",
  title: "Link graph",
  description: `The link graph, a page of at most ${GRAPH_PAGE_BYTES / 1024} KiB at a time (JSON): notes as nodes, their resolved links to other notes as edges, and next_uri for the next page. Subscribe to hear about any change.`,
  mimeType: JSON_MIME,
};

export const RESOURCE_TEMPLATES: ResourceTemplate[] = [
  {
    uriTemplate: "vault://{+path}",
    name: "file",
    title: "A note or attachment",
    description:
      "A note by its vault-relative path (text/markdown, the whole file), a canvas or base (its text), or an attachment (metadata JSON; add ?download=1 for the bytes, size-limited). Percent-encode each segment: vault://Projects/Apollo%20Launch.md. A glob such as vault://Projects/** can be subscribed to.",
  },
  {
    uriTemplate: "vault://search{?q,mode,limit,path_glob,tag}",
    name: "search",
    title: "A live search result set",
    description: "The result of vault_search for these parameters (JSON, compact hits). Subscribe to hear when the vault changes.",
    mimeType: JSON_MIME,
  },
  {
    uriTemplate: "vault://graph{?cursor}",
    name: "graph_page",
    title: "A page of the link graph",
    description: "A further page of vault://graph: follow each page's next_uri.",
    mimeType: JSON_MIME,
  },
  {
    uriTemplate: "vault://base/{+path}{?view}",
    name: "base",
    title: "A base's result",
    description:
      "What base_query returns for a .base file or a note with a base block (JSON, the first page of rows). Subscribe to hear when a change to the vault changes the result.",
    mimeType: JSON_MIME,
  },
  {
    uriTemplate: "vault://graph/backlinks/{+path}",
    name: "backlinks",
    title: "Backlinks of a note",
    description: "What link_backlinks returns for this path (JSON).",
    mimeType: JSON_MIME,
  },
  {
    uriTemplate: "vault://graph/forward/{+path}",
    name: "forward_links",
    title: "Outgoing links of a note",
    description: "What link_forward returns for this path (JSON).",
    mimeType: JSON_MIME,
  },
];

/**
 * resources/list: the synthetic views first, then every note from the index, page by page. Each
 * resource has its size in bytes; the views' sizes are those of what a read returns (the graph's
 * first page), so they are computed here (the graph page is cached until the next index update).
 */
export async function listResources(hub: McpHub, ctx: OpContext, cursor: string | undefined): Promise<ListResourcesResult> {
  const page = await invoke(noteList, ctx, { limit: PAGE, ...(cursor ? { cursor } : {}) });
  const notes: Resource[] = page.notes.map((n) => ({
    uri: vaultUri(n.path),
    name: n.path,
    title: n.title,
    mimeType: "text/markdown",
    size: n.size,
  }));
  const views = cursor
    ? []
    : [
        { ...TAGS, size: byteSize(await invoke(tagList, ctx, {})) },
        { ...GRAPH, size: byteSize(await graphPage(hub, ctx, null)) },
      ];
  return { resources: [...views, ...notes], ...(page.next_cursor ? { nextCursor: page.next_cursor } : {}) };
}

const byteSize = (data: unknown) => Buffer.byteLength(JSON.stringify(data));

const json = (uri: string, data: unknown): ReadResourceResult => ({ contents: [{ uri, mimeType: JSON_MIME, text: JSON.stringify(data) }] });

export async function readResource(hub: McpHub, ctx: OpContext, uri: string): Promise<ReadResourceResult> {
  if (isAiUri(uri)) return readAiResource(ctx, uri);
  const parsed = parseVaultUri(uri);
  switch (parsed.kind) {
    case "graph":
      return json(uri, await graphPage(hub, ctx, parsed.cursor));
    case "tags":
      return json(uri, await invoke(tagList, ctx, {}));
    case "backlinks":
      return json(uri, await invoke(linkBacklinks, ctx, { path: parsed.path }));
    case "forward":
      return json(uri, await invoke(linkForward, ctx, { path: parsed.path }));
    case "base":
      return json(uri, await invoke(baseQuery, ctx, { path: parsed.path, ...(parsed.view ? { view: parsed.view } : {}) }));
    case "search": {
      const input: Record<string, unknown> = {};
      for (const [k, v] of parsed.params) {
        if (k === "tag") input.tag = [...((input.tag as string[] | undefined) ?? []), ...v.split(",").filter(Boolean)];
        else input[k] = v;
      }
      return json(uri, await invoke(vaultSearch, ctx, input, { coerce: true }));
    }
    case "glob":
      throw new IndxError("validation_failed", "A glob URI can be subscribed to but not read; list notes with note_list and path_glob.", {
        reason: "glob",
      });
    case "file":
      return readFile(ctx, uri, parsed.path, parsed.download);
  }
}

async function readFile(ctx: OpContext, uri: string, path: string, download: boolean): Promise<ReadResourceResult> {
  const found = await invoke(noteExists, ctx, { path });
  if (!found.exists) throw new IndxError("not_found", `No file at ${found.path}`, { path: found.path });
  if (found.kind === "note") {
    const note = await invoke(noteRead, ctx, { path, include: ["content"] });
    return { contents: [{ uri, mimeType: "text/markdown", text: note.content ?? "" }] };
  }
  const textual = found.kind === "canvas" || found.kind === "base";
  if (download || textual) {
    const file = await invoke(attachmentGet, ctx, { path, download: true });
    const data = file.data_base64 ?? "";
    if (textual && !download) return { contents: [{ uri, mimeType: file.mime, text: Buffer.from(data, "base64").toString("utf8") }] };
    return { contents: [{ uri, mimeType: file.mime, blob: data }] };
  }
  const meta = await invoke(attachmentGet, ctx, { path });
  return json(uri, { ...meta, download_uri: `${vaultUri(meta.path)}?download=1` });
}
