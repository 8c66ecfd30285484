import { IndxError } from "../core/errors.ts";
import type { Span } from "../index/lexical/match-windows.ts";
import { CHUNK_JOIN } from "../index/lexical/search-document.ts";
import type { NoteSection } from "../index/storage/queries/chunks.ts";

/** The section of a note that matched best, with an excerpt around its matches. */
export interface BestSection {
  chunkId: number;
  /** Up to `tokens` words of the section with **matches**, "" when its text has none. */
  snippet: string;
  matched: boolean;
}

const TOKEN = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * Search ranks notes; the section a result points at is chosen afterwards, among the few notes
 * shown: the one with the most distinct matched words, then the most matches (the first on a tie).
 * `spans` are the matches in the note's search body: its sections joined by CHUNK_JOIN, less the
 * first `shift` characters (a `# Title` line).
 */
export function bestSection(sections: NoteSection[], body: string, spans: Span[], shift: number, tokens: number): BestSection | null {
  if (!sections.length) return null;
  const starts: number[] = [];
  let at = 0;
  for (const s of sections) {
    starts.push(at);
    at += s.text.length + CHUNK_JOIN.length;
  }
  const found = sections.map((section): { section: NoteSection; spans: Span[]; words: Set<string> } => ({ section, spans: [], words: new Set() }));
  for (const span of spans) {
    const start = span.start + shift;
    let i = starts.length - 1;
    while (i > 0 && (starts[i] ?? 0) > start) i--;
    const from = starts[i] ?? 0;
    const into = found[i];
    if (into === undefined) throw new IndxError("internal", "bestSection: a match fell outside the note's sections");
    into.spans.push({ start: start - from, end: span.end + shift - from });
    into.words.add(fold(body.slice(span.start, span.end)));
  }
  let [best] = found;
  if (best === undefined) return null;
  for (const f of found.slice(1)) {
    const [a, b] = [f.words.size, best.words.size];
    if (a > b || (a === b && f.spans.length > best.spans.length)) best = f;
  }
  const matched = best.spans.length > 0;
  return { chunkId: best.section.chunkId, snippet: matched ? excerpt(best.section.text, best.spans, tokens) : "", matched };
}

/**
 * `tokens` words of the text around its matches, matches in **bold**: the window with the most
 * distinct matched words, then the most matches, the first on a tie; `…` where the text goes on.
 */
function excerpt(text: string, spans: Span[], tokens: number): string {
  // Where each word starts and ends, in two plain arrays: an object a word cost more than the scan.
  const starts: number[] = [];
  const ends: number[] = [];
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m; m = TOKEN.exec(text)) {
    starts.push(m.index);
    ends.push(TOKEN.lastIndex);
  }
  if (!starts.length) return "";
  // Spans and words are both in text order: one sweep marks the matched words.
  const key: (string | null)[] = [];
  let j = 0;
  for (let k = 0; k < starts.length; k++) {
    const wordStart = starts[k] ?? 0;
    const wordEnd = ends[k] ?? 0;
    while (j < spans.length && (spans[j]?.end ?? 0) <= wordStart) j++;
    const span = spans[j];
    key.push(span && span.start < wordEnd ? fold(text.slice(wordStart, wordEnd)) : null);
  }
  const n = Math.min(tokens, starts.length);
  const inWindow = new Map<string, number>();
  let count = 0;
  const add = (k: string | null | undefined, d: number) => {
    if (k == null) return;
    count += d;
    const c = (inWindow.get(k) ?? 0) + d;
    if (c) inWindow.set(k, c);
    else inWindow.delete(k);
  };
  for (let k = 0; k < n; k++) add(key[k], 1);
  let best = 0;
  let bestScore = inWindow.size * 1000 + count;
  for (let from = 1; from + n <= starts.length; from++) {
    add(key[from - 1], -1);
    add(key[from + n - 1], 1);
    const score = inWindow.size * 1000 + count;
    if (score > bestScore) [best, bestScore] = [from, score];
  }
  let out = "";
  // From the very start when the window is the first words (a heading's `#` included), as FTS5's snippet() did.
  let cursor = best === 0 ? 0 : (starts[best] ?? 0);
  for (let k = best; k < best + n; k++) {
    const word = text.slice(starts[k], ends[k]);
    out += text.slice(cursor, starts[k]) + (key[k] === null ? word : `**${word}**`);
    cursor = ends[k] ?? cursor;
  }
  return `${best > 0 ? "…" : ""}${out}${best + n < starts.length ? "…" : ""}`;
}

const fold = (word: string) => word.toLowerCase();
