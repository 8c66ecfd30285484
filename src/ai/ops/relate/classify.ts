import { type Static, Type } from "@sinclair/typebox";
import type { OpContext } from "../../../ops/context.ts";
import type { Warning } from "../../../ops/schemas.ts";
import { estimateTokens } from "../../../providers/tokens.ts";
import { type Citation, verifyCitations } from "../../citations.ts";
import { type Passage, renderPassages } from "../../passages.ts";
import { groundedRationale, rationalesDropped } from "../../segments.ts";
import type { ModelSession } from "../../session.ts";
import { Citations } from "../common.ts";
import { requireFits, streamCitations } from "../grounded.ts";
import type { Pair } from "./neighbours.ts";
import { RELATE_SYSTEM, RelateReply } from "./prompt.ts";

/** Typing the relationship of each (source, neighbour) pair: by the chat model, or by a fixed rule without one. */

export const RELATION_LABELS = ["extends", "summarizes", "cites", "contradicts", "same_topic", "precedes", "depends_on", "duplicates"] as const;
type RelationLabel = (typeof RELATION_LABELS)[number];

export const RelationLabel = Type.Union(RELATION_LABELS.map((l) => Type.Literal(l)));

export const RelatedEdge = Type.Object({
  src_path: Type.String(),
  dst_path: Type.String(),
  similarity: Type.Number({
    minimum: 0,
    maximum: 1,
    description: "How alike the notes are: the cosine of their embeddings (mean of their chunks); without vectors, of their TF-IDF word profiles.",
  }),
  relation: Type.Optional(
    Type.Union(
      RELATION_LABELS.map((l) => Type.Literal(l)),
      { description: 'How the source relates to the other note, read "src_path <relation> dst_path".' },
    ),
  ),
  confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: "Present with relation." })),
  rationale: Type.Optional(Type.String({ description: "One or two sentences: why the relation holds." })),
  evidence: Citations,
});
export type RelatedEdge = Static<typeof RelatedEdge>;

/** What one prompt shows of a note at most: enough to type a relationship, not the whole note. */
const MAX_NOTE_TOKENS = 1_500;
/** Below this a note says too little to be classified: the prompt is ai_input_too_large instead. */
const MIN_NOTE_TOKENS = 60;

/**
 * One model request for a source and its neighbours (`C1`, `C2`, …): every label, confidence,
 * rationale and citation is checked before it becomes an edge. An unknown neighbour id or a label
 * not offered is `relation_invalid`; citations must quote a passage of one of the pair's two
 * notes, and an edge left with none is `ungrounded_dropped` when `cite` is on. A neighbour the
 * model leaves out is not related.
 */
export async function classifySource(
  ctx: OpContext,
  session: ModelSession,
  src: string,
  pairs: readonly Pair[],
  passagesOf: ReadonlyMap<string, Passage[]>,
  opts: { labels: readonly RelationLabel[]; cite: boolean },
  warnings: Warning[],
): Promise<RelatedEdge[]> {
  const header = [
    `Source S: ${src}`,
    "Candidates:",
    ...pairs.map((p, i) => `C${i + 1}: ${p.dst}${p.link ? " (the source links to it)" : ""}`),
    `Relations: ${opts.labels.join(", ")}`,
  ].join("\n");
  const fixed = estimateTokens(RELATE_SYSTEM) + estimateTokens(header);
  const max = ctx.ai.settings().maxInputTokens;
  requireFits(fixed + (pairs.length + 1) * MIN_NOTE_TOKENS, max);
  const share = Math.min(MAX_NOTE_TOKENS, Math.floor((max - fixed) / (pairs.length + 1)));
  const shown = numbered([src, ...pairs.map((p) => p.dst)].map((path) => within(passagesOf.get(path) ?? [], share)));
  const reply = await session.json({
    system: RELATE_SYSTEM,
    messages: [{ role: "user", content: `${header}\n\n${renderPassages(shown.flat())}` }],
    schema: RelateReply,
  });

  const edges: RelatedEdge[] = [];
  const answered = new Set<number>();
  for (const e of reply.edges) {
    const n = /^C(\d{1,3})$/i.exec(e.candidate.trim());
    const at = n ? Number(n[1]) - 1 : -1;
    const pair = pairs[at];
    if (!pair || answered.has(at)) {
      if (!pair) warnings.push({ code: "relation_invalid", message: "The model named a note it was not offered; that relationship was dropped." });
      continue;
    }
    const label = opts.labels.find((l) => l === e.relation.trim().toLowerCase());
    if (!label) {
      warnings.push({ code: "relation_invalid", message: `The model proposed a relation not offered for ${pair.dst}; it was dropped.`, path: pair.dst });
      continue;
    }
    const both = new Map([...(shown[0] ?? []), ...(shown[at + 1] ?? [])].map((p) => [p.id, p]));
    const verified = await verifyCitations(ctx, both, e.citations);
    warnings.push(...verified.warnings);
    if (opts.cite && verified.citations.length === 0) {
      warnings.push({ code: "ungrounded_dropped", message: `A relationship to ${pair.dst} had no verified quote and was dropped.`, path: pair.dst });
      continue;
    }
    answered.add(at);
    streamCitations(ctx, verified.citations);
    const rationale = groundedRationale(e.rationale.slice(0, 500), verified.citations, both.values(), false);
    if (!rationale && e.rationale.trim()) warnings.push(...rationalesDropped(1, pair.dst));
    edges.push({
      src_path: src,
      dst_path: pair.dst,
      similarity: pair.similarity,
      relation: label,
      confidence: Math.round(Math.max(0, Math.min(1, e.confidence)) * 1000) / 1000,
      ...(rationale ? { rationale } : {}),
      evidence: verified.citations,
    });
  }
  return edges;
}

/** A note's passages in order within `tokens`; a first passage too long on its own is cut to fit. */
function within(passages: readonly Passage[], tokens: number): Passage[] {
  const kept: Passage[] = [];
  let used = 0;
  for (const p of passages) {
    if (used + p.tokens > tokens) {
      if (kept.length === 0) kept.push(clipped(p, tokens));
      break;
    }
    used += p.tokens;
    kept.push(p);
  }
  return kept;
}

function clipped(p: Passage, tokens: number): Passage {
  const overhead = p.tokens - estimateTokens(p.text);
  let chars = Math.floor((p.text.length * (tokens - overhead)) / Math.max(1, p.tokens - overhead));
  let text = p.text;
  do {
    text = `${p.text.slice(0, Math.max(0, chars))}…`;
    chars = Math.floor(chars * 0.9);
  } while (estimateTokens(text) + overhead > tokens && chars > 0);
  return { ...p, text, tokens: estimateTokens(text) + overhead };
}

/** Passage ids P1, P2, … across the whole prompt, note by note. */
function numbered(notes: Passage[][]): Passage[][] {
  let n = 0;
  return notes.map((ps) => ps.map((p) => ({ ...p, id: `P${++n}` })));
}

/** Similarity at which the rule calls two notes duplicates, and the same topic (docs/decisions.md, "ai_relate"). */
const DUPLICATE_SIMILARITY = 0.95;
const SAME_TOPIC_SIMILARITY = 0.6;

/**
 * The relationship without a chat model, by a fixed rule (docs/decisions.md, "ai_relate"): `cites`
 * when the source already links the note (confidence 1, the link as evidence), `duplicates` at a
 * similarity of 0.95 or more, `same_topic` at 0.6 or more (confidence: the similarity). Only labels
 * in `labels` are given; a pair the rule cannot label is not related (null), as when a model
 * leaves a candidate out.
 */
export function ruleEdge(pair: Pair, labels: readonly RelationLabel[], srcEtag: string | null): RelatedEdge | null {
  const offered = new Set(labels);
  const edge = (relation: RelationLabel, confidence: number, rationale: string, evidence: Citation[] = []): RelatedEdge => ({
    src_path: pair.src,
    dst_path: pair.dst,
    similarity: pair.similarity,
    relation,
    confidence,
    rationale,
    evidence,
  });
  if (pair.link && offered.has("cites"))
    return edge(
      "cites",
      1,
      "The source already links to this note.",
      srcEtag ? [{ path: pair.src, etag: srcEtag, line: pair.link.line, snippet: pair.link.raw }] : [],
    );
  if (pair.similarity >= DUPLICATE_SIMILARITY && offered.has("duplicates"))
    return edge("duplicates", pair.similarity, "The notes are nearly identical in content.");
  if (pair.similarity >= SAME_TOPIC_SIMILARITY && offered.has("same_topic")) return edge("same_topic", pair.similarity, "The notes are close in content.");
  return null;
}
