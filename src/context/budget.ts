import type { Passage } from "../ai/passages.ts";
import { typicalTokens } from "../providers/tokens.ts";
import type { ContextNote, ContextOutput, ContextPassage } from "./schema.ts";

/** A note ready to go in, with its passages in the order they should be added. */
export interface NoteDraft {
  note: Omit<ContextNote, "passages">;
  passages: readonly Passage[];
}

/** A passage cut shorter than this says too little to be worth its place. */
const MIN_CLIPPED_CHARS = 80;

/**
 * Fills the answer best note first, so its compact JSON never counts above `maxTokens` in a typical
 * count (typicalTokens, src/providers/tokens.ts: what o200k and cl100k count stays under it): every
 * note gets its first passage (cut to fit if it must), then each note's further passages, best note
 * first, go in while they fit whole. Each step is measured on the answer as it stands,
 * with `tokens` holding `maxTokens`, whose digits are at least as many as the final count's.
 */
export function fitContext(drafts: readonly NoteDraft[], found: number, maxTokens: number, warnings: ContextOutput["warnings"]): ContextOutput {
  const out: ContextOutput = { notes: [], omitted: found, tokens: maxTokens, max_tokens: maxTokens, warnings };
  const fits = () => typicalTokens(JSON.stringify(out)) <= maxTokens;
  const added = new Map<string, ContextNote>();

  for (const draft of drafts) {
    const first = draft.passages[0];
    const note: ContextNote = { ...draft.note, passages: first ? [shown(first)] : [] };
    out.notes.push(note);
    out.omitted--;
    if (fits() || (first !== undefined && note.passages[0] !== undefined && clipToFit(note.passages[0], first.text, fits))) {
      added.set(note.path, note);
      continue;
    }
    out.notes.pop();
    out.omitted++;
  }

  for (const draft of drafts) {
    const note = added.get(draft.note.path);
    if (!note) continue;
    for (const p of draft.passages.slice(1)) {
      note.passages.push(shown(p));
      if (fits()) continue;
      note.passages.pop();
      break;
    }
  }

  out.tokens = typicalTokens(JSON.stringify(out));
  return out;
}

function shown(p: Passage): ContextPassage {
  return { chunk_id: `${p.path}#${p.ord}`, heading: p.heading, start_line: p.startLine, end_line: p.endLine, text: p.text };
}

/** Cuts `passage` to the longest start of `text` that fits (a binary search); false when too little would. */
function clipToFit(passage: ContextPassage, text: string, fits: () => boolean): boolean {
  passage.truncated = true;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    passage.text = `${prefix(text, mid)}…`;
    if (fits()) lo = mid;
    else hi = mid - 1;
  }
  passage.text = `${prefix(text, lo)}…`;
  return lo >= MIN_CLIPPED_CHARS && fits();
}

/** The first `n` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair. */
function prefix(text: string, n: number): string {
  const c = text.charCodeAt(n - 1);
  return text.slice(0, c >= 0xd800 && c <= 0xdbff ? n - 1 : n);
}
