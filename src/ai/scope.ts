import { type Static, Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import type { OpContext } from "../ops/context.ts";
import { invoke } from "../ops/invoke.ts";
import { INPUT_LIMITS, VaultPath } from "../ops/schemas.ts";
import type { AiGlobs } from "../providers/globs.ts";
import { filterNoteIds, normalizeTag } from "../search/filter.ts";
import { vaultSearch } from "../search/ops.ts";

/** Notes one scope may name explicitly, and hops a note scope may follow. */
const MAX_PATHS = 500;
const MAX_HOPS = 3;

/**
 * What an AI operation works on (docs/contracts.md, AI runtime: scopes). One flat object rather
 * than a union of five: an agent reads this schema in three tools on every turn, and the flat form
 * costs a third of the tokens (docs/decisions.md, "AI scopes"). Which fields a kind needs is
 * checked in resolveScope.
 */
export const AiScope = Type.Object(
  {
    kind: Type.Union([Type.Literal("paths"), Type.Literal("glob"), Type.Literal("tag"), Type.Literal("query"), Type.Literal("note")], {
      description: "Fields: paths: paths; glob: path_glob; tag: tag; query: q, mode?, limit?; note: path, include_linked?.",
    }),
    paths: Type.Optional(Type.Array(VaultPath, { minItems: 1, maxItems: MAX_PATHS })),
    path_glob: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: "e.g. 'Projects/**'." })),
    tag: Type.Optional(Type.String({ minLength: 1, maxLength: INPUT_LIMITS.nameChars })),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 2_000 })),
    mode: Type.Optional(Type.Union([Type.Literal("lexical"), Type.Literal("semantic"), Type.Literal("hybrid")])),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    path: Type.Optional(VaultPath),
    include_linked: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_HOPS, description: "Also linked notes, this many hops out." })),
  },
  { additionalProperties: false, title: "AiScope", description: "The notes." },
);
export type AiScope = Static<typeof AiScope>;

export interface ResolvedScope {
  /** Eligible notes, sorted. */
  paths: string[];
  /** Notes in scope that the globs keep from any model (never read). */
  excluded: string[];
}

/** The notes a scope names, then split by the globs. Explicit paths that are not notes are not_found. */
export async function resolveScope(ctx: OpContext, scope: AiScope, globs: AiGlobs): Promise<ResolvedScope> {
  const found = [...new Set(await candidates(ctx, scope))].sort();
  return { paths: found.filter((p) => globs.allows(p)), excluded: found.filter((p) => !globs.allows(p)) };
}

async function candidates(ctx: OpContext, scope: AiScope): Promise<string[]> {
  const index = ctx.index;
  switch (scope.kind) {
    case "paths":
      return need(scope, "paths").map((p) => requireNote(ctx, p));
    case "glob":
      return pathsOf(ctx, filterNoteIds(index, { path_glob: need(scope, "path_glob") }));
    case "tag":
      return pathsOf(ctx, filterNoteIds(index, { tag: [normalizeTag(need(scope, "tag"))] }));
    case "query": {
      const found = await invoke(vaultSearch, ctx, { q: need(scope, "q"), mode: scope.mode ?? "auto", limit: scope.limit ?? 20 });
      return found.results.map((r) => r.path);
    }
    case "note":
      return linkedNotes(ctx, requireNote(ctx, need(scope, "path")), scope.include_linked ?? 0);
  }
}

/** The field a scope kind needs, or validation_failed naming it. */
function need<K extends "paths" | "path_glob" | "tag" | "q" | "path">(scope: AiScope, field: K): NonNullable<AiScope[K]> {
  const value = scope[field];
  if (value === undefined) throw new IndxError("validation_failed", `A scope of kind ${scope.kind} needs ${field}.`, { field: `scope.${field}` });
  return value as NonNullable<AiScope[K]>;
}

function requireNote(ctx: OpContext, path: string): string {
  const safe = ctx.vault.safePath(path);
  if (!ctx.index.notes.byPath(safe)) throw new IndxError("not_found", `No indexed note at ${safe}.`, { path: safe });
  return safe;
}

function pathsOf(ctx: OpContext, ids: Set<number> | null): string[] {
  return ctx.index.files.withText().flatMap((n) => (ids === null || ids.has(n.id) ? [n.path] : []));
}

/**
 * A note and the notes its links resolve to, `hops` steps out (breadth first). Only outgoing
 * links: "this note and what it builds on"; backlinks would pull in every note that mentions a hub.
 */
function linkedNotes(ctx: OpContext, start: string, hops: number): string[] {
  const seen = new Set([start]);
  let frontier = [start];
  for (let hop = 0; hop < hops && frontier.length; hop++) {
    const next: string[] = [];
    for (const path of frontier)
      for (const link of ctx.index.links.forward(path)) {
        const target = link.target;
        // A linked PDF or DOCX with text is read as a note is (docs/documents.md).
        if (target && !seen.has(target) && (target.toLowerCase().endsWith(".md") || ctx.index.documents.get(target)?.text)) {
          seen.add(target);
          next.push(target);
        }
      }
    frontier = next;
  }
  return [...seen];
}
