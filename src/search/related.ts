import { IndxError } from "../core/errors.ts";
import { tagsOf } from "../index/storage/json-columns.ts";
import type { OpContext } from "../ops/context.ts";
import { STOPWORDS } from "./stopwords.ts";

const SOURCE_CHARS = 20_000;
const CANDIDATE_TERMS = 30;
const QUERY_TERMS = 12;
/** Document frequencies are counted no further: a word in more notes than this says little anyway, and counting is linear. */
const DF_CAP = 5000;

export interface ChunkRef {
  path: string;
  ord: number;
}

/** Splits a chunk id '<path>#<index>'; null when the id is a plain path. */
export function parseChunkId(id: string): ChunkRef | null {
  const at = id.lastIndexOf("#");
  if (at <= 0) return null;
  const ord = id.slice(at + 1);
  if (!/^\d{1,6}$/.test(ord)) return null;
  return { path: id.slice(0, at), ord: Number(ord) };
}

/**
 * The lexical fallback of `related`: the source's title, tags and its most distinctive words
 * (term frequency × inverse document frequency, measured on the index) become an any-of query.
 */
export function relatedQuery(ctx: OpContext, id: string): { fileId: number; query: string } {
  const chunk = parseChunkId(id);
  const path = ctx.vault.safePath(chunk ? chunk.path : id, "id");
  const index = ctx.index;
  const note = index.notes.byPath(path);
  if (!note) throw new IndxError("not_found", `No indexed note at ${path}`, { id });
  const texts = index.chunks.texts(note.id, chunk ? chunk.ord : null);
  if (chunk && texts.length === 0) throw new IndxError("not_found", `No chunk ${chunk.ord} in ${path}`, { id });

  const tf = wordCounts(texts.join("\n"));
  const idf = inverseDocumentFrequency(ctx);
  const scored = [...tf.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, CANDIDATE_TERMS)
    .map(([word, f]) => ({ word, score: f * idf(word) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, QUERY_TERMS)
    .map((s) => s.word);
  const tags = tagsOf(note).map((t) => t.replaceAll("/", " "));
  return { fileId: note.id, query: [note.title, ...tags, ...scored].map((t) => `"${t.replaceAll('"', "")}"`).join(" ") };
}

/** The words of a text that can say what it is about, with their counts: 3+ characters, no stopwords, no bare numbers. */
export function wordCounts(text: string): Map<string, number> {
  const tf = new Map<string, number>();
  for (const word of text
    .slice(0, SOURCE_CHARS)
    .toLowerCase()
    .match(/[\p{L}\p{N}][\p{L}\p{N}_-]*/gu) ?? []) {
    if (word.length < 3 || STOPWORDS.has(word) || /^\d+$/.test(word)) continue;
    tf.set(word, (tf.get(word) ?? 0) + 1);
  }
  return tf;
}

/** How rare a word is among the vault's notes, log(1 + notes / (1 + notes with it)), measured on the index once per word. */
export function inverseDocumentFrequency(ctx: OpContext): (word: string) => number {
  const total = ctx.index.notes.count();
  const known = new Map<string, number>();
  return (word) => {
    let idf = known.get(word);
    if (idf === undefined) known.set(word, (idf = Math.log(1 + total / (1 + ctx.index.fts.notesWithWord(word, DF_CAP)))));
    return idf;
  };
}
