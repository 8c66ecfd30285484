/**
 * The neighbourhood of activate_context's starting notes (docs/contracts.md, Context): typed
 * links, wikilinks and backlinks walked hop by hop, each note scored by its best path to a start.
 */
import type { IndexStore } from "../index/storage/store.ts";
import type { TypedLinks } from "../links/typed.ts";
import { fileKind } from "../vault/scan.ts";

export type ReasonKind = "hit" | "typed_link" | "typed_backlink" | "link" | "backlink";

/** Why a note is in the context: a start (hop 0), or the edge from the note `from` it was reached by. */
export interface Reason {
  kind: ReasonKind;
  hop: number;
  from?: string;
  rel?: string;
}

/** Where in a note the reason points, so its passage is the one that matters. */
export interface Focus {
  /** A search hit's best chunk. */
  chunkOrd?: number;
  /** The heading a link points at (`[[Note#Heading]]`). */
  heading?: string;
  /** The line a backlink stands on in this note. */
  line?: number;
}

export interface Candidate {
  path: string;
  score: number;
  reason: Reason;
  focus: Focus;
}

type EdgeKind = Exclude<ReasonKind, "hit">;

/**
 * How much of a note's score passes along each kind of edge (docs/decisions.md, activate_context):
 * a relation someone declared in a property says more than a link in passing, and a link out
 * more than a mention elsewhere.
 */
const EDGE_WEIGHT: Record<EdgeKind, number> = { typed_link: 0.8, typed_backlink: 0.7, link: 0.6, backlink: 0.5 };

/** Notes expanded per hop, best first: a hub note's hundreds of backlinks are scored, not walked further. */
const EXPANDED_PER_HOP = 20;

interface Edge {
  to: string;
  kind: EdgeKind;
  rel?: string;
  focus: Focus;
}

/** Every note reachable from `starts` within `hops`, best score first; starts stay hits. */
export function walkNeighbourhood(index: IndexStore, typed: TypedLinks, starts: Candidate[], hops: number): Candidate[] {
  const best = new Map(starts.map((s) => [s.path, s]));
  let frontier = starts;
  for (let hop = 1; hop <= hops && frontier.length > 0; hop++) {
    const reached = new Map<string, Candidate>();
    for (const from of frontier.slice(0, EXPANDED_PER_HOP)) {
      for (const edge of edgesOf(index, typed, from.path)) {
        const score = from.score * EDGE_WEIGHT[edge.kind];
        const known = best.get(edge.to);
        if (known && (known.reason.hop === 0 || known.score >= score)) continue;
        const reason: Reason = { kind: edge.kind, hop, from: from.path, ...(edge.rel ? { rel: edge.rel } : {}) };
        const candidate = { path: edge.to, score, reason, focus: edge.focus };
        best.set(edge.to, candidate);
        reached.set(edge.to, candidate);
      }
    }
    frontier = [...reached.values()].sort(byRank);
  }
  return [...best.values()].sort(byRank);
}

/** Ranked: score, then fewer hops, then path (so equal scores come out the same every time). */
export function byRank(a: Candidate, b: Candidate): number {
  return b.score - a.score || a.reason.hop - b.reason.hop || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

/** The notes one hop from `path`, one edge per note: the strongest of the links between them. */
function edgesOf(index: IndexStore, typed: TypedLinks, path: string): Edge[] {
  const edges = new Map<string, Edge>();
  const add = (edge: Edge) => {
    // A PDF or DOCX with text is a neighbour as a note is (docs/documents.md): it has a notes row.
    if (edge.to === path || (fileKind(edge.to) !== "note" && !index.notes.byPath(edge.to))) return;
    const known = edges.get(edge.to);
    if (!known || EDGE_WEIGHT[edge.kind] > EDGE_WEIGHT[known.kind]) edges.set(edge.to, edge);
  };
  for (const link of index.links.forward(path)) {
    if (link.target === null) continue;
    const rel = typed.relOf(link.property);
    // `#page=3&selection=…` into a PDF focuses its page.
    const heading = link.subpath.startsWith("#^")
      ? undefined
      : link.subpath
          .split("#")
          .filter(Boolean)
          .pop()
          ?.replace(/^(page=\d+)&.*$/i, "$1");
    add({ to: link.target, kind: rel ? "typed_link" : "link", ...(rel ? { rel } : {}), focus: heading ? { heading } : {} });
  }
  for (const back of index.links.backlinks(path)) {
    const rel = typed.relOf(back.property);
    add({ to: back.source, kind: rel ? "typed_backlink" : "backlink", ...(rel ? { rel } : {}), focus: rel ? {} : { line: back.line } });
  }
  return [...edges.values()];
}
