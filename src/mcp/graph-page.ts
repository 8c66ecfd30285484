import { IndxError } from "../core/errors.ts";
import { linkForward } from "../links/ops.ts";
import { noteList } from "../notes/ops.ts";
import type { OpContext } from "../ops/context.ts";
import type { OutputOf } from "../ops/define.ts";
import { invoke } from "../ops/invoke.ts";
import { fileKind } from "../vault/scan.ts";
import type { McpHub } from "./hub.ts";
import { graphPageUri } from "./uris.ts";

/**
 * A page of vault://graph stops at this many bytes of JSON, like note_read_many's default
 * budget_bytes (docs/decisions.md, "Graph pages budgeted by size"): a count of notes says nothing of
 * the size, since one hub note can link to thousands of others.
 */
export const GRAPH_PAGE_BYTES = 64 * 1024;

/** At most this many notes a page, however small they are. */
export const GRAPH_PAGE_NOTES = 200;

/** What a next_uri can cost: the cursor is two small integers, base64url. */
const NEXT_URI_RESERVE = 120;

export interface GraphPage {
  nodes: { id: string; title: string; tags: string[] }[];
  /** Each page's edges leave its nodes, except the first ones of a page that goes on with the previous page's last node. */
  edges: { source: string; target: string; count: number }[];
  /** Notes in the whole graph. */
  total_nodes: number;
  next_uri: string | null;
}

/**
 * Where a page starts: the note's offset in the listing by path and how much of that note earlier
 * pages gave: 0 nothing, k ≥ 1 its node and its first k − 1 edges (a page stopped inside them).
 * A cursor of the older form, `{o}`, is the same with nothing given.
 */
interface GraphCursor {
  o: number;
  e: number;
}

const encode = (c: GraphCursor) => Buffer.from(JSON.stringify(c.e ? c : { o: c.o })).toString("base64url");

function decode(cursor: string | null): GraphCursor {
  if (cursor === null) return { o: 0, e: 0 };
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { o?: unknown; e?: unknown };
    const whole = (n: unknown) => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
    if (whole(v.o) && (v.e === undefined || whole(v.e))) return { o: v.o as number, e: (v.e as number | undefined) ?? 0 };
  } catch {
    // fall through to the typed error
  }
  throw new IndxError("validation_failed", "The cursor is not valid; start again without it.", { field: "cursor" });
}

/** Offset cursors of note_list are this shape (src/ops/schemas.ts, encodeCursor). */
const listCursor = (offset: number) => Buffer.from(JSON.stringify({ o: offset })).toString("base64url");

async function edgesOf(ctx: OpContext, path: string): Promise<GraphPage["edges"] | null> {
  let out: OutputOf<typeof linkForward>;
  try {
    out = await invoke(linkForward, ctx, { path });
  } catch {
    return null; // deleted since the listing
  }
  const counts = new Map<string, number>();
  for (const l of out.links) if (l.target && l.target !== path && fileKind(l.target) === "note") counts.set(l.target, (counts.get(l.target) ?? 0) + 1);
  return [...counts].map(([target, count]) => ({ source: path, target, count }));
}

/**
 * A page of vault://graph, composed from note_list and link_forward (no operation returns the
 * graph): notes in path order, each with its outgoing edges (whose targets may be on other
 * pages), until the next node or edge would take the page past GRAPH_PAGE_BYTES; next_uri goes on
 * from there, inside a note's edges if need be, so that paging through gives every node and every
 * edge once. A page holds at least one node or edge. Cached until the next index update.
 */
export async function graphPage(hub: McpHub, ctx: OpContext, cursor: string | null, budget = GRAPH_PAGE_BYTES): Promise<GraphPage> {
  const start = decode(cursor);
  // A grant sees its own graph (docs/permissions.md): the cache is per grant.
  const key = `graph:${ctx.grant?.key ?? ""}:${budget}:${start.o}:${start.e}`;
  const cached = hub.derived.get(key) as GraphPage | undefined;
  if (cached) return cached;
  const generation = hub.generation;
  const list = await invoke(noteList, ctx, { limit: GRAPH_PAGE_NOTES, ...(start.o ? { cursor: listCursor(start.o) } : {}) });
  const graph: GraphPage = { nodes: [], edges: [], total_nodes: list.total, next_uri: null };
  let used = Buffer.byteLength(JSON.stringify(graph)) + NEXT_URI_RESERVE;
  const fits = (item: unknown) => {
    const size = Buffer.byteLength(JSON.stringify(item)) + 1; // and its comma
    if (used + size > budget && graph.nodes.length + graph.edges.length > 0) return false;
    used += size;
    return true;
  };
  let stop: GraphCursor | null = null;
  notes: for (const [i, note] of list.notes.entries()) {
    const offset = start.o + i;
    const given = i === 0 ? start.e : 0;
    if (given === 0) {
      const node = { id: note.path, title: note.title, tags: note.tags };
      if (!fits(node)) {
        stop = { o: offset, e: 0 };
        break;
      }
      graph.nodes.push(node);
    }
    const edges = (await edgesOf(ctx, note.path)) ?? [];
    for (let j = Math.max(0, given - 1); j < edges.length; j++) {
      const edge = edges[j];
      if (!edge) break;
      if (!fits(edge)) {
        stop = { o: offset, e: j + 1 };
        break notes;
      }
      graph.edges.push(edge);
    }
  }
  if (!stop && list.next_cursor) stop = { o: start.o + list.notes.length, e: 0 };
  graph.next_uri = stop ? graphPageUri(encode(stop)) : null;
  if (generation === hub.generation) hub.derived.set(key, graph);
  return graph;
}
