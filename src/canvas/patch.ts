/**
 * canvas_patch: structured edits of a canvas document. Ops apply in order to a copy; the first one
 * that fails throws and the input document is left as it was. The result is validated as a whole,
 * so no sequence of ops can leave an edge dangling or an id duplicated.
 */
import { IndxError } from "../core/errors.ts";
import { type CanvasDoc, type CanvasPatchOp, CanvasPatchOpSchema } from "./schema.ts";
import { canvasProblems, validateCanvas } from "./validate.ts";

export { type CanvasPatchOp, CanvasPatchOpSchema };

type Item = Record<string, unknown> & { id: string };

function notFound(kind: "node" | "edge", id: string, index: number): IndxError {
  return new IndxError("patch_target_not_found", `No ${kind} with id "${id}" (op ${index}).`, { id, kind, op: index });
}

function indexOf(items: Item[], kind: "node" | "edge", id: string, index: number): number {
  const at = items.findIndex((n) => n.id === id);
  if (at < 0) throw notFound(kind, id, index);
  return at;
}

/** The item must be valid on its own (the canvas as a whole is checked once every op has run). */
function checkItem(kind: "node" | "edge", item: unknown, index: number): void {
  const probe = kind === "node" ? { nodes: [item] } : { edges: [item] };
  // An edge alone names nodes that are not in the probe; only its own fields are checked here.
  const problems = canvasProblems(probe).filter((p) => !p.message.startsWith("names no node"));
  const [first] = problems;
  if (first)
    throw new IndxError("validation_failed", `Invalid ${kind} (op ${index}): ${first.path} ${first.message}`, {
      op: index,
      problems,
    });
}

function add(items: Item[], kind: "node" | "edge", item: Record<string, unknown>, index: number): void {
  checkItem(kind, item, index);
  const id = item.id as string;
  if (items.some((n) => n.id === id))
    throw new IndxError("validation_failed", `A ${kind} with id "${id}" already exists (op ${index}).`, {
      op: index,
      id,
      reason: "already_exists",
    });
  items.push(structuredClone(item) as Item);
}

/** Sets fields; `null` removes one. The id is the item's identity and cannot be set. */
function update(items: Item[], kind: "node" | "edge", id: string, set: Record<string, unknown>, index: number): void {
  const at = indexOf(items, kind, id, index);
  if ("id" in set && set.id !== id)
    throw new IndxError("validation_failed", `The id of a ${kind} cannot change (op ${index}); remove it and add a new one.`, {
      op: index,
      id,
    });
  const current = items[at];
  if (current === undefined) throw notFound(kind, id, index);
  const next: Record<string, unknown> = { ...current };
  for (const [k, v] of Object.entries(set)) {
    if (v === null) delete next[k];
    else next[k] = structuredClone(v);
  }
  checkItem(kind, next, index);
  items[at] = next as Item;
}

export function applyCanvasPatches(doc: CanvasDoc, ops: readonly CanvasPatchOp[]): CanvasDoc {
  const out = structuredClone(doc) as Record<string, unknown>;
  const nodes = (Array.isArray(out.nodes) ? out.nodes : []) as Item[];
  const edges = (Array.isArray(out.edges) ? out.edges : []) as Item[];
  for (const [index, op] of ops.entries()) applyOp(nodes, edges, op, index);
  // Keep absent arrays absent unless an op put something in them (a no-op patch changes nothing).
  if (out.nodes !== undefined || nodes.length > 0) out.nodes = nodes;
  if (out.edges !== undefined || edges.length > 0) out.edges = edges;
  return validateCanvas(out);
}

/** One patch op, in place; `index` names the op in errors. */
function applyOp(nodes: Item[], edges: Item[], op: CanvasPatchOp, index: number): void {
  switch (op.op) {
    case "add_node":
      return add(nodes, "node", op.node, index);
    case "update_node":
      return update(nodes, "node", op.id, op.set, index);
    case "remove_node": {
      nodes.splice(indexOf(nodes, "node", op.id, index), 1);
      // An edge cannot outlive either of its ends.
      for (let i = edges.length - 1; i >= 0; i--) {
        const edge = edges[i];
        if (edge && (edge.fromNode === op.id || edge.toNode === op.id)) edges.splice(i, 1);
      }
      return;
    }
    case "add_edge":
      return add(edges, "edge", op.edge, index);
    case "update_edge":
      return update(edges, "edge", op.id, op.set, index);
    case "remove_edge":
      edges.splice(indexOf(edges, "edge", op.id, index), 1);
      return;
  }
}
