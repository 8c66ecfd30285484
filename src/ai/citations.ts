import { type Static, Type } from "@sinclair/typebox";
import { etagOf } from "../core/hash.ts";
import type { OpContext } from "../ops/context.ts";
import type { Warning } from "../ops/schemas.ts";
import type { Passage } from "./passages.ts";

/** A verified source: the note, the version that was read, and where in it the quote is. */
export const Citation = Type.Object({
  path: Type.String(),
  etag: Type.String({ description: "The version cited: compare with note_read's etag to see whether the note changed since." }),
  anchor: Type.Optional(Type.String({ description: "The section's heading, usable after '#' in a link ('page=3' in a PDF)." })),
  page: Type.Optional(Type.Integer({ description: "A PDF's page the quote is on, verified against that page's text at etag." })),
  line: Type.Optional(Type.Integer({ description: "The line where the quote starts (in a PDF, its page)." })),
  // Two integers as an array, not a Tuple: a Tuple's draft-07 `items: [...]` is refused by JSON
  // Schema 2020-12 validators, so an MCP 2.x client would not call a tool whose output holds it (docs/mcp.md).
  span: Type.Optional(Type.Array(Type.Integer(), { minItems: 2, maxItems: 2, description: "The cited passage's first and last line." })),
  snippet: Type.Optional(Type.String({ description: "The quote, as it is written in the note." })),
});
export type Citation = Static<typeof Citation>;

/** What the model returns for one citation: a passage id and a verbatim quote from it. */
export const ModelCitation = Type.Object({
  passage: Type.String(),
  quote: Type.String({ maxLength: 1000 }),
});
export type ModelCitation = Static<typeof ModelCitation>;

export interface Dropped {
  passage: string;
  reason: "unknown_passage" | "quote_not_found" | "drift";
}

export interface Verified {
  citations: Citation[];
  warnings: Warning[];
  dropped: Dropped[];
}

/** A quote shorter than this (normalised) proves nothing: "the" occurs everywhere. */
const MIN_QUOTE_CHARS = 12;
const MAX_SNIPPET_CHARS = 300;

/**
 * Turns the model's citations into Citations, keeping only those that hold now (docs/contracts.md,
 * AI runtime): the passage was one the model was given; its note on disk still has the etag the
 * model read (an edit during generation is `citation_drift`); and the quote occurs in the passage,
 * whitespace-, case- and emphasis-insensitively (else `citation_invalid`). The anchor is the
 * passage's own heading, which exists in that version by construction.
 */
export async function verifyCitations(
  ctx: OpContext,
  passages: ReadonlyMap<string, Passage>,
  cites: readonly ModelCitation[],
  /** The etags on disk already read in this call: each note is read once per call, not once per claim. */
  etags: Map<string, string | null> = new Map(),
): Promise<Verified> {
  const out: Verified = { citations: [], warnings: [], dropped: [] };
  const drop = (passage: string, reason: Dropped["reason"], warning: Warning) => {
    out.dropped.push({ passage, reason });
    if (!out.warnings.some((w) => w.code === warning.code && w.path === warning.path && w.message === warning.message)) out.warnings.push(warning);
  };
  for (const cite of cites) {
    const id = cite.passage.trim().toUpperCase();
    const passage = passages.get(id);
    if (!passage) {
      drop(cite.passage.slice(0, 20), "unknown_passage", { code: "citation_invalid", message: "A citation named a passage the model was not given." });
      continue;
    }
    const found = locateQuote(passage.text, cite.quote);
    if (!found) {
      drop(id, "quote_not_found", { code: "citation_invalid", message: `A quote attributed to ${passage.path} is not in it.`, path: passage.path });
      continue;
    }
    if (!etags.has(passage.path)) etags.set(passage.path, await etagOnDisk(ctx, passage.path));
    if (etags.get(passage.path) !== passage.etag) {
      drop(id, "drift", { code: "citation_drift", message: `${passage.path} changed since the model read it.`, path: passage.path });
      continue;
    }
    // A PDF passage is a page: its lines are the page's, not the file's (docs/documents.md).
    const line = passage.page ?? passage.startLine + countNewlines(passage.text, found.start);
    const snippet = passage.text.slice(found.start, found.end).replace(/\s+/g, " ").slice(0, MAX_SNIPPET_CHARS);
    out.citations.push({
      path: passage.path,
      etag: passage.etag,
      ...(passage.anchor ? { anchor: passage.anchor } : {}),
      ...(passage.page !== undefined ? { page: passage.page } : {}),
      line,
      span: [passage.startLine, passage.endLine],
      snippet,
    });
  }
  out.citations = uniqueCitations(out.citations);
  return out;
}

/** Citations without repeats (the same quote at the same place), in their first order. */
export function uniqueCitations(citations: readonly Citation[]): Citation[] {
  const seen = new Set<string>();
  return citations.filter((c) => {
    const key = `${c.path}\u0000${c.line ?? ""}\u0000${c.snippet ?? ""}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export async function etagOnDisk(ctx: OpContext, path: string): Promise<string | null> {
  try {
    return etagOf(new Uint8Array(await Bun.file(ctx.vault.abs(path)).arrayBuffer()));
  } catch {
    return null;
  }
}

/**
 * Where a quote is in a text, compared after normalising both sides the same way: Unicode NFKC
 * (so a ligature, a full-width letter or a composed accent matches its plain form), zero-width
 * characters and soft hyphens dropped, every kind of space (NBSP included) and runs of them as
 * one space, case folded, Markdown emphasis and code marks ignored, curly quotes straightened.
 * A match must start and end on word boundaries: a quote cut mid-word ("ollback the rele")
 * proves nothing and does not count (docs/decisions.md, "Claim-level grounding"). Returns the
 * quote's range in the original text, or null.
 */
export function locateQuote(text: string, quote: string): { start: number; end: number } | null {
  const q = normalize(
    quote
      .trim()
      .replace(/^["“'‘«]+|["”'’»]+$/g, "")
      .replace(/(?:\.\.\.|…)$/, ""),
  ).text.trim();
  const t = normalize(text);
  if (q.length < MIN_QUOTE_CHARS && q !== t.text.trim()) return null;
  if (q.length === 0) return null;
  for (let at = t.text.indexOf(q); at >= 0; at = t.text.indexOf(q, at + 1)) {
    if (cutsWord(t.text, at, at + q.length)) continue;
    const start = t.starts[at];
    const end = t.ends[at + q.length - 1];
    if (start !== undefined && end !== undefined) return { start, end };
  }
  return null;
}

const WORD = /[\p{L}\p{N}\p{M}]/u;
/** Scripts written without spaces between words: any character boundary is a word boundary there. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/** Whether the range [start, end) of a text begins or ends inside a word. */
function cutsWord(text: string, start: number, end: number): boolean {
  const inside = (a: string | undefined, b: string | undefined) =>
    a !== undefined && b !== undefined && WORD.test(a) && WORD.test(b) && !UNSPACED.test(a) && !UNSPACED.test(b);
  return inside(text[start - 1], text[start]) || inside(text[end - 1], text[end]);
}

const IGNORED = new Set(["*", "_", "`", "~"]);
const STRAIGHT: Record<string, string> = { "“": '"', "”": '"', "‘": "'", "’": "'", "„": '"', "‚": "'" };
/** Invisible characters a quote or a note may carry that say nothing: zero-width spaces and joiners, word joiner, BOM, soft hyphen. */
const INVISIBLE = /[\u200B-\u200D\u2060\uFEFF\u00AD]/u;

const CLUSTER_AT = /\P{M}\p{M}*|\p{M}+/suy;
const MARK = /\p{M}/u;

/**
 * The normalised text and, for each of its characters, where the original characters it came
 * from start and end. ASCII (most of most notes) takes a fast path; anything else is normalised
 * a cluster (a character and its combining marks) at a time.
 */
export function normalize(text: string): { text: string; starts: number[]; ends: number[] } {
  let out = "";
  let last = "";
  const starts: number[] = [];
  const ends: number[] = [];
  const push = (ch: string, start: number, end: number) => {
    out += ch;
    last = ch;
    starts.push(start);
    ends.push(end);
  };
  const space = (start: number, end: number) => {
    if (out.length > 0 && last !== " ") push(" ", start, end);
  };
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (code < 128 && !(next >= 0x300 && MARK.test(text.charAt(i + 1)))) {
      if (code === 42 || code === 95 || code === 96 || code === 126) {
        // * _ ` ~: emphasis and code marks
      } else if (code === 32 || (code >= 9 && code <= 13)) space(i, i + 1);
      else push(code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : text.charAt(i), i, i + 1);
      i++;
      continue;
    }
    CLUSTER_AT.lastIndex = i;
    const cluster = CLUSTER_AT.exec(text)?.[0] ?? text.charAt(i);
    const end = i + cluster.length;
    for (const c of cluster.normalize("NFKC")) {
      if (IGNORED.has(c) || INVISIBLE.test(c)) continue;
      if (/\s/u.test(c)) space(i, end);
      else for (const ch of (STRAIGHT[c] ?? c).toLowerCase()) push(ch, i, end);
    }
    i = end;
  }
  return { text: out, starts, ends };
}

function countNewlines(text: string, end: number): number {
  let n = 0;
  for (let i = 0; i < end; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}
