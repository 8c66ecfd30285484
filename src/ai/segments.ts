import { type Static, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { OpContext } from "../ops/context.ts";
import type { Warning } from "../ops/schemas.ts";
import { STOPWORDS } from "../search/stopwords.ts";
import { type Citation, type Dropped, ModelCitation, normalize, uniqueCitations, verifyCitations } from "./citations.ts";
import type { Passage } from "./passages.ts";
import { SegmentFollower } from "./segment-stream.ts";

/**
 * Claim-level grounding (docs/decisions.md, "Claim-level grounding"). The model writes prose as
 * segments — a claim of a sentence or two with the citations that support it — and the runtime
 * keeps a segment only when (1) at least one of its citations is verified (the quote is in the
 * passage named, at the version read) and (2) what it says is drawn from what it cites: every
 * sentence shares most of its content words with the cited passages, and every number or code
 * in it (anything with a digit) occurs in them. The text returned is assembled from the segments
 * kept, in order; the rest are dropped and counted.
 */

export const Segment = Type.Object({
  text: Type.String({ maxLength: 4_000, description: "One claim: a sentence or two, drawn only from the passages cited." }),
  citations: Type.Array(ModelCitation, { maxItems: 20 }),
});
export type Segment = Static<typeof Segment>;

export const Segments = (maxItems: number, description: string) => Type.Array(Segment, { maxItems, description });

/** A segment as it survived: its text and its verified citations. */
export interface KeptSegment {
  /** Where it was in the reply, e.g. "segments/3". */
  key: string;
  text: string;
  citations: Citation[];
}

/** The share of a sentence's content words that must occur in the passages it cites. */
const MIN_SUPPORT = 0.6;

/**
 * Grounds the segments of one reply, each once, in the order given (streamed segments are
 * grounded as they complete and not again at the end, so what was sent is what is returned).
 */
export class SegmentGrounder {
  private readonly results = new Map<string, Promise<KeptSegment | null>>();
  private readonly etags = new Map<string, string | null>();
  readonly warnings: Warning[] = [];
  readonly dropped: Dropped[] = [];
  /** Segments with text that did not survive. */
  ungrounded = 0;
  /** Citations that failed verification, across the segments kept. */
  citationsDropped = 0;

  constructor(
    private readonly ctx: OpContext,
    private readonly passages: ReadonlyMap<string, Passage>,
    /** The reply is in another language than the notes: word overlap cannot be asked for, numbers and codes still are. */
    private readonly translated: boolean,
  ) {}

  /** The segment at `key` (e.g. "segments/3"), grounded; null when it is dropped or empty. */
  ground(key: string, segment: Segment): Promise<KeptSegment | null> {
    let r = this.results.get(key);
    if (!r) {
      r = this.check(key, segment);
      this.results.set(key, r);
    }
    return r;
  }

  /** Every segment of a list, grounded, the survivors in order. */
  async groundAll(field: string, segments: readonly Segment[]): Promise<KeptSegment[]> {
    const kept: KeptSegment[] = [];
    for (const [i, s] of segments.entries()) {
      const k = await this.ground(`${field}/${i}`, s);
      if (k) kept.push(k);
    }
    return kept;
  }

  private async check(key: string, segment: Segment): Promise<KeptSegment | null> {
    const text = segment.text.replace(/[ \t]+/g, " ").trim();
    if (text === "") return null;
    const v = await verifyCitations(this.ctx, this.passages, segment.citations, this.etags);
    this.warnings.push(...v.warnings);
    this.dropped.push(...v.dropped);
    const cited = v.citations.map((c) => this.passageText(c)).join("\n");
    if (v.citations.length === 0 || !supported(text, cited, this.translated)) {
      this.ungrounded++;
      return null;
    }
    this.citationsDropped += v.dropped.length;
    return { key, text, citations: v.citations };
  }

  /** The text of the passage a verified citation points into (the passage the model was given). */
  private passageText(c: Citation): string {
    for (const p of this.passages.values()) if (p.path === c.path && p.startLine === c.span?.[0]) return p.text;
    return c.snippet ?? "";
  }

  /** The warning for what was dropped, or none. */
  droppedWarning(what: string): Warning[] {
    if (this.ungrounded === 0) return [];
    return [
      {
        code: "ungrounded_dropped",
        message: `${this.ungrounded} ${what}${this.ungrounded === 1 ? "" : "s"} without a verified citation supporting ${this.ungrounded === 1 ? "it" : "them"} ${this.ungrounded === 1 ? "was" : "were"} dropped.`,
      },
    ];
  }
}

/** The survivors' text as one piece of prose: sentences run on, list items and headings start a line. */
export function joinSegments(parts: readonly string[]): string {
  let out = "";
  for (const p of parts) out += out === "" ? p : `${separator(p)}${p}`;
  return out;
}

export const separator = (next: string) => (/^(?:[-*+] |\d+[.)] |#{1,6} |>)/.test(next) ? "\n" : " ");

export const citationsOf = (kept: readonly KeptSegment[]) => uniqueCitations(kept.flatMap((k) => k.citations));

/**
 * Whether every sentence of a claim is drawn from the cited text: its numbers and codes all occur
 * there, and (unless the claim is a translation) most of its content words do.
 */
export function supported(claim: string, cited: string, translated: boolean): boolean {
  const source = new Set(words(cited));
  for (const sentence of claim.split(/(?<=[.!?。！？])\s+|\n+/u)) {
    const ws = words(sentence);
    for (const w of ws) if (/\d/u.test(w) && !source.has(w)) return false;
    if (translated || ws.length === 0) continue;
    const found = ws.filter((w) => source.has(w)).length;
    if (found / ws.length < MIN_SUPPORT) return false;
  }
  return true;
}

/** Content words, normalised as quotes are and crudely stemmed: enough to tell a paraphrase from an invention. */
function words(text: string): string[] {
  return (normalize(text).text.match(/[\p{L}\p{N}\p{M}]+(?:[-_.][\p{L}\p{N}]+)*/gu) ?? [])
    .filter((w) => /\d/u.test(w) || (w.length > 2 && !STOPWORDS.has(w)))
    .map(stem);
}

/**
 * Truncation stemming: common endings off, then the first six letters, so "deployment" meets
 * "deploy" and "configuration" meets "configure". Lenient on purpose: it decides whether a word
 * was drawn from the passages, and a paraphrase in the passages' words should pass.
 */
function stem(w: string): string {
  if (/\d/u.test(w)) return w;
  return w.replace(/(?:ing|ed|es|s|ly)$/u, "").slice(0, 6);
}

/**
 * Streams one field's segments as they are grounded (docs/contracts.md, AI runtime: streaming):
 * each survivor's text as an `ai.partial` once its citations check out, and its citations; a
 * dropped segment sends nothing. What is sent is what the final result holds, because the final
 * result is assembled from the same grounded segments, never re-checked.
 */
export class SegmentStream {
  private chain: Promise<void> = Promise.resolve();
  private sentText = false;
  private readonly sentKeys = new Set<string>();
  private readonly sentCitations = new Set<string>();
  /** The reply's deltas, when the caller streams; undefined otherwise (nothing to follow). */
  readonly follow: ((delta: string) => void) | undefined;

  constructor(
    private readonly ctx: OpContext,
    private readonly grounder: SegmentGrounder,
    private readonly field: string,
    private readonly maxItems: number,
    gate: string | null = null,
  ) {
    if (!ctx.aiStream) return;
    const follower = new SegmentFollower([field], gate);
    this.follow = (delta) => {
      for (const el of follower.push(delta)) {
        if (el.index >= this.maxItems || !isSegment(el.value)) continue;
        const value = el.value;
        this.chain = this.chain.then(async () => {
          const kept = await this.grounder.ground(`${this.field}/${el.index}`, value);
          if (kept) this.send(kept);
        });
      }
    };
  }

  /** Every segment streamed so far has been grounded and sent. */
  settled(): Promise<void> {
    return this.chain;
  }

  /** Sends the survivors not streamed yet (all of them when the provider answered in one piece), then the citations not sent yet. */
  finish(kept: readonly KeptSegment[], citations: readonly Citation[]): void {
    if (!this.ctx.aiStream) return;
    for (const k of kept) if (!this.sentKeys.has(k.key)) this.send(k);
    for (const c of citations) this.sendCitation(c);
  }

  private send(kept: KeptSegment): void {
    this.sentKeys.add(kept.key);
    this.ctx.aiStream?.({ type: "ai.partial", delta: this.sentText ? `${separator(kept.text)}${kept.text}` : kept.text });
    this.sentText = true;
    for (const c of kept.citations) this.sendCitation(c);
  }

  private sendCitation(c: Citation): void {
    const key = `${c.path}\u0000${c.line ?? ""}\u0000${c.snippet ?? ""}`;
    if (this.sentCitations.has(key)) return;
    this.sentCitations.add(key);
    this.ctx.aiStream?.({ type: "ai.citation", citation: c });
  }
}

const isSegment = (v: unknown): v is Segment => Value.Check(Segment, v);

/** Whether two texts share a content word (normalised and stemmed as claims are). */
export function sharesWords(a: string, b: string): boolean {
  const inB = new Set(words(b));
  return words(a).some((w) => inB.has(w));
}

/**
 * A rationale (ai_relate, ai_tag, ai_metadata) is prose like any other: kept only when its
 * verified citations support it, as a segment's text must be; otherwise it is left out and the
 * item stands on its evidence alone.
 */
export function groundedRationale(
  rationale: string | undefined,
  citations: readonly Citation[],
  passages: Iterable<Passage>,
  translated: boolean,
): string | undefined {
  const text = rationale?.replace(/\s+/g, " ").trim();
  if (!text || citations.length === 0) return undefined;
  const all = [...passages];
  const cited = citations.map((c) => all.find((p) => p.path === c.path && p.startLine === c.span?.[0])?.text ?? c.snippet ?? "").join("\n");
  return supported(text, cited, translated) ? text : undefined;
}

/** The warning for rationales left out, or none. */
export function rationalesDropped(count: number, path?: string): Warning[] {
  if (count === 0) return [];
  return [
    {
      code: "ungrounded_dropped",
      ...(path ? { path } : {}),
      message: `${count} rationale${count === 1 ? "" : "s"} not supported by ${count === 1 ? "its" : "their"} verified quotes ${count === 1 ? "was" : "were"} left out.`,
    },
  ];
}
