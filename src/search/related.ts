import { IndxError } from "../core/errors.ts";
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

  const source = texts.join("\n").slice(0, SOURCE_CHARS);
  const tf = new Map<string, number>();
  for (const word of source.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}_-]*/gu) ?? []) {
    if (word.length < 3 || STOPWORDS.has(word) || /^\d+$/.test(word)) continue;
    tf.set(word, (tf.get(word) ?? 0) + 1);
  }
  const total = index.notes.count();
  const scored = [...tf.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, CANDIDATE_TERMS)
    .map(([word, f]) => ({ word, score: f * Math.log(1 + total / (1 + index.fts.notesWithWord(word, DF_CAP))) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, QUERY_TERMS)
    .map((s) => s.word);
  const tags = (JSON.parse(note.tagsJson) as string[]).map((t) => t.replaceAll("/", " "));
  return { fileId: note.id, query: [note.title, ...tags, ...scored].map((t) => `"${t.replaceAll('"', "")}"`).join(" ") };
}
