import { Type } from "@sinclair/typebox";
import { EXPRESSION_LIMITS } from "../bases/expr/limits.ts";
import { IndxError } from "../core/errors.ts";
import { logEvent } from "../core/log.ts";
import type { Availability } from "../embeddings/service.ts";
import type { VectorStore } from "../embeddings/store.ts";
import type { IndexStore } from "../index/storage/store.ts";
import type { OpContext } from "../ops/context.ts";
import { defineOp } from "../ops/define.ts";
import { Cursor, decodeCursor, encodeCursor, FrontmatterFilter, Limit, NextCursor, PATH_MARK, TagFilter, Warning } from "../ops/schemas.ts";
import { createChatProvider } from "../providers/providers.ts";
import { aiEnabled, chatSettings, type EmbeddingsSettings } from "../providers/settings.ts";
import { type ChatProvider, ProviderError } from "../providers/types.ts";
import { filterNoteIds } from "./filter.ts";
import { configuredWeight } from "./fusion-weight.ts";
import { type FusedNote, fuse, maxFused, toHits } from "./hybrid.ts";
import { lexicalNotes, lexicalSearch, normalizeScore } from "./lexical.ts";
import { type CompiledQuery, compileQuery, type FilterItem, queryParts } from "./query.ts";
import { parseChunkId, relatedQuery } from "./related.ts";
import { blend, MAX_RERANK_CANDIDATES, rerankScores } from "./rerank.ts";
import { buildResults, type RankedHit, SearchResult, sectionsToShow } from "./results.ts";
import { centroid, semanticPage, vectorChunks } from "./semantic.ts";

const Mode = Type.Union([Type.Literal("lexical"), Type.Literal("semantic"), Type.Literal("hybrid")]);
type ModeName = "lexical" | "semantic" | "hybrid";

const SearchOutput = Type.Object({
  results: Type.Array(SearchResult),
  mode_requested: Type.Union([Mode, Type.Literal("auto")]),
  mode_used: Mode,
  limit: Type.Integer(),
  next_cursor: NextCursor,
  warnings: Type.Array(Warning),
});

type Plan =
  | { mode: "lexical" }
  | {
      mode: "semantic" | "hybrid";
      store: VectorStore;
      settings: EmbeddingsSettings;
      vector: Float32Array /** Of the vector list in fusion. */;
      weight: number;
    };

const NOT_CONFIGURED =
  "Semantic search needs an embeddings provider: set INDX_EMBEDDINGS_PROVIDER (ollama | openai) and INDX_EMBEDDINGS_MODEL, then run `indx vault index`. Use mode lexical meanwhile.";

type Unavailable = Exclude<Availability, { state: "ready" | "not_configured" }>;

/** Why vector search cannot run, as the error an explicit semantic request gets. */
function unavailableError(a: Unavailable): IndxError {
  if (a.state === "incompatible") return new IndxError("index_incompatible", a.message, { mode: "semantic", fix: a.fix });
  return new IndxError("ai_unavailable", `Semantic search is unavailable: ${a.message} Use mode lexical meanwhile.`, { mode: "semantic", fix: a.fix });
}

function unavailableWarning(a: Unavailable): Warning {
  return { code: a.state === "incompatible" ? "embeddings_incompatible" : "embeddings_unavailable", message: `${a.message} Results are lexical only.` };
}

function providerError(err: unknown): IndxError {
  if (err instanceof IndxError) return err;
  const e = err instanceof ProviderError ? err : new ProviderError("bad_response", "unexpected failure");
  return e.code === "ai_unavailable"
    ? new IndxError(
        "ai_unavailable",
        `The embeddings provider could not embed the query (${e.kind.replace("_", " ")}). Use mode lexical, or check it with \`indx vault status\`.`,
        {
          mode: "semantic",
          reason: e.kind,
        },
      )
    : new IndxError("ai_provider_error", `The embeddings provider failed (${e.kind.replace("_", " ")}${e.status ? `, HTTP ${e.status}` : ""}).`, {
        reason: e.kind,
      });
}

/**
 * The one fallback rule of vault_search and related (docs/contracts.md, Search): true when the
 * vectors can serve the request. Otherwise an explicit semantic request is an actionable error,
 * hybrid falls back to lexical with a warning, and auto falls back with a warning only when
 * embeddings are configured (not configuring them is a choice, not a problem).
 */
function vectorsUsable(
  a: Availability,
  requested: ModeName | "auto",
  warnings: Warning[],
  usable: (a: Unavailable | Extract<Availability, { state: "ready" }>) => boolean,
): boolean {
  if (a.state === "not_configured") {
    if (requested === "semantic")
      throw new IndxError("ai_unavailable", NOT_CONFIGURED, { mode: "semantic", fix: "set INDX_EMBEDDINGS_PROVIDER and run indx vault index" });
    if (requested === "hybrid")
      warnings.push({ code: "embeddings_unavailable", message: "No embeddings provider is configured (INDX_EMBEDDINGS_PROVIDER); results are lexical only." });
    return false;
  }
  if (usable(a)) return true;
  if (a.state === "ready") return false;
  if (requested === "semantic") throw unavailableError(a);
  warnings.push(unavailableWarning(a));
  return false;
}

/** Picks the mode actually used; a query needs the provider too, to embed the query text. */
async function plan(ctx: OpContext, requested: ModeName | "auto", q: string, warnings: Warning[]): Promise<Plan> {
  if (requested === "lexical") return { mode: "lexical" };
  const svc = ctx.embeddings;
  const a = svc.availability(ctx);
  // Only "ready" serves a query, whose text must be embedded too (the second test narrows the type).
  if (!vectorsUsable(a, requested, warnings, (s) => s.state === "ready") || a.state !== "ready") return { mode: "lexical" };
  const weight = vectorWeight(ctx, requested);
  if (requested === "auto" && weight === 0) return { mode: "lexical" };
  let vector: Float32Array;
  try {
    vector = await svc.embedQuery(a.settings, queryParts(q).text || q);
  } catch (err) {
    const e = providerError(err);
    logEvent("search.embeddings_failed", { code: e.code });
    if (requested === "semantic") throw e;
    warnings.push({
      code: e.code === "index_incompatible" ? "embeddings_incompatible" : "embeddings_unavailable",
      message: `${e.message.replace(/ Use mode lexical.*$/, "")} Results are lexical only.`,
    });
    return { mode: "lexical" };
  }
  if (a.pending > 0)
    warnings.push({ code: "embeddings_incomplete", message: `${a.pending} of ${a.chunks} chunks are not embedded yet; vector results may miss them.` });
  return { mode: requested === "semantic" ? "semantic" : "hybrid", store: a.store, settings: a.settings, vector, weight };
}

/**
 * How much the vector list counts in fusion: `search.vector_weight` when set, else what was
 * measured on this vault for these vectors (src/search/fusion-weight.ts). Unmeasured, `auto` stays
 * lexical; an explicit `hybrid` fuses at the measured weight, or evenly when that is 0 or unknown.
 */
function vectorWeight(ctx: OpContext, requested: ModeName | "auto"): number {
  const configured = configuredWeight(ctx.vault.config.str("search.vector_weight"));
  if (configured !== null) return configured;
  const measured = ctx.embeddings.fusion()?.weight ?? 0;
  return requested === "auto" || measured > 0 ? measured : 1;
}

/**
 * The query's +required and -excluded items applied to the vector list: notes must contain
 * every required item (in any section) and no excluded one, a CJK word counting inside longer
 * runs as lexical search counts it. Returns the narrowed allowed set (null: no restriction) and
 * the files to exclude.
 */
function syntaxFilter(index: IndexStore, q: string, allowed: Set<number> | null): { allowed: Set<number> | null; exclude: number[] } {
  const parts = queryParts(q);
  let narrowed = allowed;
  for (const req of parts.required) {
    const files = notesWith(index, req);
    narrowed = new Set([...(narrowed ?? files)].filter((f) => files.has(f)));
  }
  const exclude = new Set<number>();
  for (const item of parts.excluded) for (const f of notesWith(index, item)) exclude.add(f);
  return { allowed: narrowed, exclude: [...exclude] };
}

/** The notes that have a query item: as a word or phrase, or (CJK) inside their runs. */
function notesWith(index: IndexStore, item: FilterItem): Set<number> {
  const files = new Set(index.fts.filesMatching(item.literal));
  if (!item.cjk.length) return files;
  const inRuns = item.cjk.map((run) => new Set(index.fts.containing(run, { allowed: null }, Number.MAX_SAFE_INTEGER)));
  const [firstRun = new Set<number>(), ...otherRuns] = inRuns;
  for (const f of firstRun) if (otherRuns.every((s) => s.has(f))) files.add(f);
  return files;
}

/** The notes that pass `where` (a Bases expression, as note_list's: src/bases/where.ts) among those already allowed. */
async function whereIds(ctx: OpContext, allowed: Set<number> | null, where: string | undefined): Promise<Set<number> | null> {
  if (where === undefined) return allowed;
  // Loaded only for a `where`: the Bases parser and evaluator (YAML, a regex engine) are most of
  // what a plain search would otherwise load (docs/decisions.md, "A CLI search loads only what it runs").
  const { noteWhere } = await import("../bases/where.ts");
  const passes = noteWhere(ctx.index, ctx.vault, where);
  const out = new Set<number>();
  for (const note of ctx.index.files.notes()) if ((!allowed || allowed.has(note.id)) && passes(note)) out.add(note.id);
  return out;
}

/** How many chunks each list contributes to fusion. */
const depthFor = (want: number) => Math.min(1000, Math.max(100, want * 5));

export const vaultSearch = defineOp({
  name: "vault_search",
  errors: ["path_invalid", "not_found", "ai_unavailable", "ai_provider_error", "cancelled"],
  title: "Search the vault",
  description: 'Search notes; compact hits. Query: words, "phrase", +must, -not, prefix*, OR, dates (2024-05, A..B).',
  scope: "vault:read",
  safe: true,
  input: Type.Object(
    {
      q: Type.String({ maxLength: 2000, description: "Query." }),
      mode: Type.Optional(Type.Union([Mode, Type.Literal("auto")], { default: "auto", description: "auto: hybrid if embeddings exist." })),
      tag: Type.Optional(TagFilter("Only notes with all these tags.")),
      path_glob: Type.Optional(Type.String({ maxLength: 500, description: "Path glob, e.g. 'Projects/**'." })),
      frontmatter: Type.Optional(FrontmatterFilter),
      // Explained in the operation's description: the catalogue an agent reads each turn stays small.
      where: Type.Optional(Type.String({ maxLength: EXPRESSION_LIMITS.chars, description: "Bases filter expression." })),
      min_score: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: "Drop hits scoring less." })),
      limit: Type.Optional(Limit(10, 100)),
      cursor: Type.Optional(Cursor),
      rerank: Type.Optional(Type.Boolean({ description: "Rerank with the chat model." })),
    },
    { additionalProperties: false },
  ),
  output: SearchOutput,
  async run(ctx, input) {
    const warnings: Warning[] = [];
    const requested = input.mode ?? "auto";
    const index = ctx.index;
    const limit = input.limit ?? ctx.vault.config.int("search.default_limit");
    const offset = decodeCursor(input.cursor);
    const allowed = await whereIds(ctx, filterNoteIds(index, input), input.where);
    const compiled = compileQuery(input.q);
    const searchable = !(compiled.match === null && compiled.cjk.length === 0);
    const p: Plan = searchable || input.q.trim() ? await plan(ctx, requested, input.q, warnings) : { mode: "lexical" };
    if (!searchable && p.mode === "lexical")
      warnings.push({ code: "query_empty", message: "The query has no searchable words (only punctuation, operators or exclusions)." });
    const out = (page: SearchResult[], hasMore: boolean, mode: ModeName) => {
      // Every mode lists hits by falling score: past the first one under min_score, none is above it.
      const minScore = input.min_score;
      const results = minScore === undefined ? page : page.filter((r) => r.score >= minScore);
      return {
        results,
        mode_requested: requested,
        mode_used: mode,
        limit,
        next_cursor: hasMore && results.length === page.length ? encodeCursor(offset + limit) : null,
        warnings,
      };
    };

    if (p.mode === "lexical") {
      const page = lexicalSearch(index, input.q, { offset, limit, allowed });
      const hits = page.hits.map((h) => ({ fileId: h.fileId, chunkId: null, score: normalizeScore(h.bm25) }));
      return out(buildResults(index, hits, page.match, page.cjk), page.hasMore, "lexical");
    }
    const want = offset + limit + 1;
    const syntax = syntaxFilter(index, input.q, allowed);
    if (p.mode === "semantic") {
      const chunks = vectorChunks(index, p.store, p.vector, {
        limit: Math.max(want * 4, 40),
        allowed: syntax.allowed,
        excludeFileIds: syntax.exclude,
        distinctNotes: want,
      });
      const page = semanticPage(chunks, offset, limit);
      return out(buildResults(index, page.hits, compiled.match, compiled.cjk), page.hasMore, "semantic");
    }

    const depth = depthFor(want);
    const lex = lexicalNotes(index, compiled, { limit: depth, allowed }).map((n) => ({ fileId: n.fileId, chunkId: null }));
    // The vector list is shallower: past a few dozen, RRF adds little and the KNN costs more.
    const vec = vectorChunks(index, p.store, p.vector, {
      limit: Math.min(depth, Math.max(40, want * 3)),
      allowed: syntax.allowed,
      excludeFileIds: syntax.exclude,
    });
    const weights = [1, p.weight];
    const fused = fuse([lex, vec], weights);
    const top = maxFused(weights);
    const names = ["lexical", "semantic"];
    let hits: RankedHit[] = toHits(fused, names, (n) => n.fused / top);
    if ((input.rerank ?? ctx.vault.config.get<boolean>("search.rerank")) === true && fused.length > 1)
      hits = await rerankHits(ctx, index, input.q, compiled, fused, hits, offset, warnings);
    return out(buildResults(index, hits.slice(offset, offset + limit), compiled.match, compiled.cjk), hits.length > offset + limit, "hybrid");
  },
  summary: (o) => {
    const [top] = o.results;
    return top
      ? `Found ${o.results.length}${o.next_cursor ? "+" : ""} results (${o.mode_used}). Top hit: ${top.path} (score ${top.score})`
      : `No results (${o.mode_used})`;
  },
});

/**
 * Optional reranking of the top fused notes by the chat model, blended with their fused
 * scores by position (docs/search.md, Reranking). Any failure keeps the fused order and says so.
 */
async function rerankHits(
  ctx: OpContext,
  index: IndexStore,
  q: string,
  compiled: CompiledQuery,
  fused: FusedNote[],
  hits: RankedHit[],
  offset: number,
  warnings: Warning[],
): Promise<RankedHit[]> {
  const cfg = ctx.vault.config;
  const n = Math.min(MAX_RERANK_CANDIDATES, Math.max(2, cfg.int("search.rerank_candidates")), hits.length);
  if (offset >= n) return hits;
  let chat: ChatProvider;
  try {
    if (!aiEnabled(cfg)) {
      warnings.push({ code: "rerank_unavailable", message: "The AI runtime is turned off (ai.enabled = false); results are in fused order." });
      return hits;
    }
    const s = chatSettings(cfg);
    if (s === null) {
      warnings.push({ code: "rerank_unavailable", message: "Reranking needs a chat model (INDX_AI_MODEL); results are in fused order." });
      return hits;
    }
    chat = createChatProvider(s, () => ctx.ai.wall(), ctx.ai.meter(), ctx.vault.dataDir, "rerank");
  } catch (err) {
    warnings.push({ code: "rerank_unavailable", message: `${(err as Error).message} Results are in fused order.` });
    return hits;
  }
  const head = fused.slice(0, n);
  const shown = sectionsToShow(index, head, compiled.match, compiled.cjk);
  const chunkOf = (h: FusedNote) => shown.get(h.fileId)?.chunkId ?? -1;
  const byId = new Map(index.chunks.passages(head.map(chunkOf)).map((r) => [r.chunkId, r]));
  // A note the AI deny globs exclude is never shown to the reranker (docs/contracts.md, "Deny globs are a
  // wall"): it keeps its fused score, graded neither up nor down.
  const wall = ctx.ai.wall();
  const graded = head.flatMap((h, i) => (wall.deniedIds.has(h.fileId) ? [] : [{ h, i }]));
  const [first] = head;
  if (graded.length === 0 || first === undefined) return hits;
  const started = performance.now();
  try {
    const scores = await rerankScores(
      chat,
      q,
      graded.map(({ h }) => {
        const r = byId.get(chunkOf(h));
        const hp = r?.headingPath ?? [];
        return { title: r?.title ?? "", heading: hp[hp.length - 1] ?? null, text: r?.text ?? "" };
      }),
      Math.max(100, cfg.int("search.rerank_timeout_ms")),
      ctx.signal,
    );
    const retrieval = head.map((h) => h.fused / first.fused);
    const relevance = retrieval.slice();
    graded.forEach(({ i }, k) => {
      // rerankScores answers one grade per passage, an ungraded one neutral (0.5).
      relevance[i] = scores[k] ?? 0.5;
    });
    const blended = blend(retrieval, relevance);
    const top = hits.slice(0, n).map((h, i) => ({ ...h, score: blended[i] ?? h.score, reason: `${h.reason}, reranked` }));
    top.sort((a, b) => b.score - a.score || a.fileId - b.fileId);
    logEvent("search.reranked", { candidates: n, ms: Math.round(performance.now() - started) });
    return [...top, ...hits.slice(n)];
  } catch (err) {
    // A cancelled search has no one to answer: no fused-order fallback, no warning.
    if (ctx.signal?.aborted) throw new IndxError("cancelled", "The search was cancelled.", { reason: "cancelled" });
    // The cost cap, an unpriced model or the deny wall refused the request: say which.
    const kind = err instanceof ProviderError ? err.kind : err instanceof IndxError ? err.code : "internal";
    logEvent("search.rerank_failed", { code: kind, ms: Math.round(performance.now() - started) });
    warnings.push({ code: "rerank_failed", message: `Reranking failed (${kind.replaceAll("_", " ")}); results are in fused order.` });
    return hits;
  }
}

export const related = defineOp({
  name: "related",
  errors: ["path_invalid", "not_found", "ai_unavailable", "ai_provider_error", "cancelled"],
  title: "Notes related to a note or chunk",
  description: "Notes related to a note or chunk, as search hits.",
  scope: "vault:read",
  safe: true,
  input: Type.Object(
    {
      id: Type.String({ minLength: 1, maxLength: 1100, description: "Note path or chunk id '<path>#<n>'.", [PATH_MARK]: true }),
      mode: Type.Optional(Type.Union([Mode, Type.Literal("auto")], { default: "auto", description: "auto: semantic if embeddings exist." })),
      limit: Type.Optional(Limit(10, 100)),
    },
    { additionalProperties: false },
  ),
  output: SearchOutput,
  run(ctx, input) {
    const warnings: Warning[] = [];
    const requested = input.mode ?? "auto";
    const limit = input.limit ?? 10;
    const found = relatedNotes(ctx, input.id, { requested, limit, allowed: null, warnings });
    return {
      results: buildResults(ctx.index, found.hits, found.match, found.cjk, found.mode === "lexical" ? "shares terms" : undefined),
      mode_requested: requested,
      mode_used: found.mode,
      limit,
      next_cursor: null,
      warnings,
    };
  },
  summary: (o) => `${o.results.length} related notes (${o.mode_used})`,
});

/** The neighbours of one note or chunk, best first, before they are shown as search results. */
export interface RelatedNotes {
  hits: RankedHit[];
  mode: ModeName;
  /** The lexical query's match expression and CJK runs (for showing the sections that match). */
  match: string | null;
  cjk: string[];
}

/**
 * The notes nearest a note or chunk (`related`, and ai_relate's neighbour discovery): by stored
 * vectors when usable (no provider call, so a provider that is down does not matter), fused with
 * the note's distinctive words in hybrid mode, else by those words alone. `allowed` restricts the
 * candidates (null: every note); the note itself is never among them.
 */
export function relatedNotes(
  ctx: OpContext,
  id: string,
  opts: { requested: ModeName | "auto"; limit: number; allowed: Set<number> | null; warnings: Warning[] },
): RelatedNotes {
  const { requested, limit, allowed, warnings } = opts;
  const index = ctx.index;
  const { fileId, query } = relatedQuery(ctx, id);
  const lexical = (): RelatedNotes => {
    const page = lexicalSearch(index, query, { offset: 0, limit, allowed, excludeFileIds: [fileId] });
    const hits = page.hits.map((h) => ({ fileId: h.fileId, chunkId: null, score: normalizeScore(h.bm25) }));
    return { hits, mode: "lexical", match: page.match, cjk: page.cjk };
  };
  if (requested === "lexical") return lexical();

  const a = ctx.embeddings.availability(ctx);
  if (!vectorsUsable(a, requested, warnings, (s) => s.state === "ready" || s.state === "provider_down")) return lexical();
  const store = ctx.embeddings.vectors(false);
  // Usable vectors imply a store; one deleted in the meantime leaves the words alone to relate by.
  if (store === null) return lexical();
  const chunk = parseChunkId(id);
  const hashes = index.chunks.hashes(fileId, chunk ? chunk.ord : null);
  const own = store.vectorsOf(hashes);
  const direction = centroid([...own.values()]);
  if (!direction) {
    const msg = "This note has no embeddings yet (it is new, empty or still being embedded).";
    if (requested === "semantic")
      throw new IndxError("ai_unavailable", `${msg} Try again shortly, or use mode lexical.`, { mode: "semantic", fix: "indx vault index" });
    warnings.push({ code: "embeddings_pending", message: `${msg} Related notes are found by shared words only.` });
    return lexical();
  }
  if (own.size < hashes.length) warnings.push({ code: "embeddings_incomplete", message: "Some sections of this note are not embedded yet." });
  const vec = vectorChunks(index, store, direction, { limit: depthFor(limit + 1), allowed, excludeFileIds: [fileId], distinctNotes: limit + 1 });
  if (requested === "hybrid") {
    const compiled = compileQuery(query);
    const lex = lexicalNotes(index, compiled, { limit: depthFor(limit + 1), allowed, excludeFileIds: [fileId] });
    const fused = fuse([lex.map((n) => ({ fileId: n.fileId, chunkId: null })), vec]);
    const hits = toHits(fused.slice(0, limit), ["shared words", "semantic"], (n) => n.fused / maxFused([1, 1]));
    return { hits, mode: "hybrid", match: compiled.match, cjk: compiled.cjk };
  }
  const page = semanticPage(vec, 0, limit);
  return { hits: page.hits.map((h) => ({ ...h, reason: "semantic neighbour" })), mode: "semantic", match: null, cjk: [] };
}
