import { type Static, Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import { TypedLinks } from "../links/typed.ts";
import type { OpContext } from "../ops/context.ts";
import { defineOp } from "../ops/define.ts";
import { invoke } from "../ops/invoke.ts";
import { Limit, VaultPath, type Warning } from "../ops/schemas.ts";
import { vaultSearch } from "../search/ops.ts";
import { parseChunkId } from "../search/related.ts";
import { statVaultFile } from "../vault/read.ts";
import { fileKind } from "../vault/scan.ts";
import { fitContext, type NoteDraft } from "./budget.ts";
import { type Candidate, walkNeighbourhood } from "./neighbourhood.ts";
import { contextPassages } from "./passages.ts";
import { ContextOutput } from "./schema.ts";

const Input = Type.Object(
  {
    query: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: "Search query." })),
    path: Type.Optional(VaultPath),
    hops: Type.Optional(Type.Integer({ minimum: 0, maximum: 3, default: 2, description: "Link hops from the hits." })),
    max_tokens: Type.Optional(Type.Integer({ minimum: 500, maximum: 20_000, default: 4000, description: "Token budget of the answer." })),
    hits: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 3, description: "Search hits to start from." })),
    limit: Type.Optional(Limit(12, 50)),
  },
  { additionalProperties: false },
);
type Input = Static<typeof Input>;

export const activateContext = defineOp({
  name: "activate_context",
  errors: ["path_invalid", "not_found"],
  title: "A topic with its neighbourhood",
  description: "A query's (or a note's) best notes and their linked notes, with key passages, within max_tokens.",
  scope: "vault:read",
  safe: true,
  input: Input,
  output: ContextOutput,
  async run(ctx, input) {
    const warnings: Warning[] = [];
    const starts = await startingNotes(ctx, input, warnings);
    const found = walkNeighbourhood(ctx.index, TypedLinks.fromConfig(ctx.vault.config), starts, input.hops ?? 2);
    const chosen = found.slice(0, input.limit ?? 12);
    const passages = contextPassages(ctx, chosen);
    const drafts: NoteDraft[] = chosen.map((c) => ({
      note: { path: c.path, title: ctx.index.notes.byPath(c.path)?.title ?? c.path, score: round(c.score), reason: c.reason },
      passages: passages.get(c.path) ?? [],
    }));
    return fitContext(drafts, found.length, input.max_tokens ?? 4000, warnings);
  },
  summary: (o) =>
    o.notes.length
      ? `Context of ${o.notes.length} notes (${o.tokens} of ${o.max_tokens} tokens${o.omitted ? `, ${o.omitted} more left out` : ""}), starting at ${o.notes[0]?.path ?? "none"}`
      : "No context found",
});

/** The hits: the search's best notes for the query, or the note given (score 1). */
async function startingNotes(ctx: OpContext, input: Input, warnings: Warning[]): Promise<Candidate[]> {
  if ((input.query === undefined) === (input.path === undefined))
    throw new IndxError("validation_failed", "activate_context takes a query or a path (one of them).", { fields: ["query", "path"] });
  if (input.path !== undefined) {
    const path = statVaultFile(ctx.vault, input.path).path;
    if (fileKind(path) !== "note" || !ctx.index.notes.byPath(path))
      throw new IndxError("validation_failed", `${path} is not an indexed note.`, { field: "path" });
    return [{ path, score: 1, reason: { kind: "hit", hop: 0 }, focus: {} }];
  }
  const found = await invoke(vaultSearch, ctx, { q: input.query ?? "", limit: input.hits ?? 3 });
  warnings.push(...found.warnings);
  return found.results.map((r) => ({
    path: r.path,
    score: r.score,
    reason: { kind: "hit", hop: 0 },
    focus: { chunkOrd: parseChunkId(r.chunk_id)?.ord },
  }));
}

const round = (n: number) => Math.round(n * 1000) / 1000;
