import { type Passage, passagesForPaths } from "../ai/passages.ts";
import { headingKey } from "../markdown/headings.ts";
import type { OpContext } from "../ops/context.ts";
import type { Candidate, Focus } from "./neighbourhood.ts";

/**
 * The passages of each note in the context, the one its reason points at first: a hit's best
 * chunk, the section a link names, the paragraph a backlink stands in, else the note's opening.
 * Each note keeps its other chunks after it, added best note first while the budget allows.
 */
export function contextPassages(ctx: OpContext, notes: readonly Candidate[]): Map<string, Passage[]> {
  const byPath = new Map<string, Passage[]>();
  for (const p of passagesForPaths(
    ctx,
    notes.map((n) => n.path),
  )) {
    const list = byPath.get(p.path);
    if (list) list.push(p);
    else byPath.set(p.path, [p]);
  }
  const out = new Map<string, Passage[]>();
  for (const note of notes) {
    const all = byPath.get(note.path) ?? [];
    const at = focusIndex(all, note.focus);
    const focus = all[at];
    if (focus === undefined) out.set(note.path, []);
    else out.set(note.path, [focus, ...all.filter((_, i) => i !== at)]);
  }
  return out;
}

function focusIndex(passages: readonly Passage[], focus: Focus): number {
  let at = -1;
  if (focus.chunkOrd !== undefined) at = passages.findIndex((p) => p.ord === focus.chunkOrd);
  else if (focus.heading !== undefined) {
    const wanted = headingKey(focus.heading);
    at = passages.findIndex((p) => p.heading !== null && headingKey(p.heading) === wanted);
  } else if (focus.line !== undefined) {
    const line = focus.line;
    at = passages.findIndex((p) => p.startLine <= line && line <= p.endLine);
  }
  if (at >= 0) return at;
  const opening = passages.findIndex((p) => p.text.trim() !== "");
  return opening >= 0 ? opening : passages.length > 0 ? 0 : -1;
}
