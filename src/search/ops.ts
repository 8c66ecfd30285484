import { Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import { filterNoteIds } from "../notes/filter.ts";
import { defineOp } from "../ops/define.ts";
import type { OpContext } from "../ops/context.ts";
import { Cursor, decodeCursor, encodeCursor, FrontmatterFilter, Limit, NextCursor, Warning } from "../ops/schemas.ts";
import { lexicalSearch } from "./lexical.ts";
import { relatedQuery } from "./related.ts";
import { buildResults, SearchResult } from "./results.ts";

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

interface Warn {
  code: string;
  message: string;
}

/**
 * Picks the mode actually used. Embeddings are not built yet in this version, so anything
 * vector-based falls back visibly (hybrid, auto with a provider configured) or fails with an
 * actionable error (semantic), as seed 004 asks.
 */
function chooseMode(ctx: OpContext, requested: ModeName | "auto", warnings: Warn[]): "lexical" {
  const configured = ctx.vault.config.str("embeddings.provider") !== null;
  if (requested === "semantic")
    throw new IndxError(
      "ai_unavailable",
      configured
        ? "Semantic search needs embeddings, and none are available for this index yet. Use mode lexical."
        : "Semantic search needs an embeddings provider: set INDX_EMBEDDINGS_PROVIDER and INDX_EMBEDDINGS_MODEL, then run `indx vault index`. Use mode lexical meanwhile.",
      { mode: "semantic", fix: "set INDX_EMBEDDINGS_PROVIDER and run indx vault index" },
    );
  if (requested === "hybrid" || (requested === "auto" && configured))
    warnings.push({ code: "embeddings_unavailable", message: "Embeddings are not available; results are lexical only." });
  return "lexical";
}

export const vaultSearch = defineOp({
  name: "vault_search",
  title: "Search the vault",
  description:
    'Search notes and get compact hits (path, title, best heading, snippet, score), never whole notes: follow up with note_read or chunk_get on the hits you need. Query syntax: words (any may match; notes with more of them rank higher), "exact phrase", +required, -excluded, prefix*, OR. Filter with tag (nested tags included), path_glob and frontmatter. Page with cursor.',
  scope: "vault:read",
  safe: true,
  input: Type.Object(
    {
      q: Type.String({ maxLength: 2000, description: "What to look for." }),
      mode: Type.Optional(Type.Union([Mode, Type.Literal("auto")], { default: "auto", description: "auto: hybrid when embeddings are available, else lexical." })),
      tag: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { description: "Only notes with all these tags." })),
      path_glob: Type.Optional(Type.String({ maxLength: 500, description: "Only notes whose path matches, e.g. 'Projects/**'." })),
      frontmatter: Type.Optional(FrontmatterFilter),
      limit: Type.Optional(Limit(10, 100)),
      cursor: Type.Optional(Cursor),
    },
    { additionalProperties: false },
  ),
  output: SearchOutput,
  run(ctx, input) {
    const warnings: Warn[] = [];
    const requested = input.mode ?? "auto";
    const mode = chooseMode(ctx, requested, warnings);
    const db = ctx.index.db;
    const limit = input.limit ?? ctx.vault.config.int("search.default_limit");
    const offset = decodeCursor(input.cursor);
    const allowed = filterNoteIds(db, input);
    const page = lexicalSearch(db, input.q, { offset, limit, allowed });
    if (page.match === null && page.cjk.length === 0)
      warnings.push({ code: "query_empty", message: "The query has no searchable words (only punctuation, operators or exclusions)." });
    return {
      results: buildResults(db, page.hits, page.match, page.cjk),
      mode_requested: requested,
      mode_used: mode,
      limit,
      next_cursor: page.hasMore ? encodeCursor(offset + limit) : null,
      warnings,
    };
  },
  summary: (o) =>
    o.results.length
      ? `Found ${o.results.length}${o.next_cursor ? "+" : ""} results (${o.mode_used}). Top hit: ${o.results[0]!.path} (score ${o.results[0]!.score})`
      : `No results (${o.mode_used})`,
});

export const related = defineOp({
  name: "related",
  title: "Notes related to a note or chunk",
  description:
    "Find notes related to a known note (its path) or chunk ('<path>#<index>'), as compact candidates like vault_search returns. The input itself is never in the results, and no note body is returned.",
  scope: "vault:read",
  safe: true,
  input: Type.Object(
    {
      id: Type.String({ minLength: 1, maxLength: 1100, description: "A note path or a chunk id '<path>#<index>'." }),
      mode: Type.Optional(Type.Union([Mode, Type.Literal("auto")], { default: "auto" })),
      limit: Type.Optional(Limit(10, 100)),
    },
    { additionalProperties: false },
  ),
  output: SearchOutput,
  run(ctx, input) {
    const warnings: Warn[] = [];
    const requested = input.mode ?? "auto";
    const mode = chooseMode(ctx, requested, warnings);
    const db = ctx.index.db;
    const limit = input.limit ?? 10;
    const { fileId, query } = relatedQuery(ctx, input.id);
    const page = lexicalSearch(db, query, { offset: 0, limit, allowed: null, excludeFileIds: [fileId] });
    return {
      results: buildResults(db, page.hits, page.match, page.cjk, "shares terms"),
      mode_requested: requested,
      mode_used: mode,
      limit,
      next_cursor: null,
      warnings,
    };
  },
  summary: (o) => `${o.results.length} related notes (${o.mode_used})`,
});
