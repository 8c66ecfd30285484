import { IndxError } from "../../core/errors.ts";
import type { OpContext } from "../../ops/context.ts";
import type { Warning } from "../../ops/schemas.ts";
import { estimateTokens } from "../../providers/tokens.ts";
import { type Passage, passagesForPaths } from "../passages.ts";
import type { AiScope } from "../scope.ts";
import { type ApplyInput, checkIfMatch } from "./apply/controls.ts";
import { fitToBudget, notesInScope } from "./grounded.ts";

/** One note as the model reads it for a per-note suggestion: the passages that fit, all of one version. */
export interface NoteSource {
  path: string;
  etag: string;
  passages: Passage[];
}

/**
 * The notes a per-note suggestion reads (ai_tag, ai_metadata, ai_extract): the scope after the AI
 * globs, at most `maxNotes` of them, and an if_match that names no other note — all refused
 * before any model call.
 */
export async function notesToSuggestFor(
  ctx: OpContext,
  op: string,
  input: ApplyInput & { scope: AiScope },
  maxNotes: number,
  warnings: Warning[],
): Promise<string[]> {
  const paths = await notesInScope(ctx, input.scope, warnings);
  if (paths.length > maxNotes)
    throw new IndxError("validation_failed", `The scope holds ${paths.length} notes; ${op} takes at most ${maxNotes} per call.`, {
      field: "scope",
      notes: paths.length,
    });
  checkIfMatch(input, paths);
  return paths;
}

/** What a per-note suggestion reads before its first model request (perNoteSources). */
export interface PerNoteSources {
  paths: string[];
  sources: NoteSource[];
  /** Every note's passages, for the call's pinned scope. */
  passages: Passage[];
  /** The scope's warnings so far (notes left out by the AI globs, …). */
  warnings: Warning[];
  scopeResolved: { paths: string[]; total_tokens: number };
}

/**
 * The notes of a per-note suggestion (notesToSuggestFor) with the passages of each that fit next
 * to the prompt's fixed texts (the system text and the instructions).
 */
export async function perNoteSources(
  ctx: OpContext,
  op: string,
  input: ApplyInput & { scope: AiScope },
  maxNotes: number,
  promptTexts: readonly string[],
): Promise<PerNoteSources> {
  const warnings: Warning[] = [];
  const paths = await notesToSuggestFor(ctx, op, input, maxNotes, warnings);
  const sources = noteSources(
    ctx,
    paths,
    promptTexts.reduce((n, text) => n + estimateTokens(text), 0),
  );
  const passages = sources.flatMap((s) => s.passages);
  return { paths, sources, passages, warnings, scopeResolved: { paths, total_tokens: passages.reduce((n, p) => n + p.tokens, 0) } };
}

/** The result fields every per-note suggestion fills alike: its scope, usage (runAi fills it in) and every warning. */
export function perNoteTotals(read: PerNoteSources, perNote: readonly { warnings: Warning[] }[]) {
  return {
    scope_resolved: read.scopeResolved,
    usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0 },
    warnings: [...read.warnings, ...perNote.flatMap((n) => n.warnings)],
  };
}

/**
 * Each note of a scope with its passages, first ones first, as many as fit next to `fixedTokens`
 * of instructions; passage ids restart at P1 in every note, since each note is its own request.
 * A note with no text to read (no chunks) is left out.
 */
export function noteSources(ctx: OpContext, paths: readonly string[], fixedTokens: number): NoteSource[] {
  const byPath = new Map<string, Passage[]>();
  for (const p of passagesForPaths(ctx, paths)) {
    const list = byPath.get(p.path) ?? [];
    list.push({ ...p, id: `P${list.length + 1}` });
    byPath.set(p.path, list);
  }
  const budget = ctx.ai.settings().maxInputTokens;
  // Every list holds at least the passage that created it.
  return [...byPath].flatMap(([path, passages]) => {
    const [first] = passages;
    return first ? [{ path, etag: first.etag, passages: fitToBudget(passages, budget, fixedTokens) }] : [];
  });
}

/** Requests in flight at once for per-note suggestions: enough to hide latency, few enough for a local model. */
const NOTE_CONCURRENCY = 4;

/**
 * fn over every item, a few at a time; results in the items' order, whatever order they finish
 * in. When the daily cost cap is reached part way, no further item is started and the items
 * already answered — already paid for — are returned, with an `ai_quota_reached` warning in
 * `warnings`; with none answered, ai_quota_exceeded. Any other failure fails the call.
 */
export async function forEachNote<T, R>(items: readonly T[], fn: (item: T) => Promise<R>, warnings: Warning[]): Promise<R[]> {
  const out = new Array<R>(items.length);
  const done = new Array<boolean>(items.length).fill(false);
  // One iterator shared by the workers: each takes the next item it yields.
  const queue = items.entries();
  let stopped = false;
  let quota: IndxError | null = null;
  const worker = async () => {
    for (const [i, item] of queue) {
      if (stopped) return;
      try {
        out[i] = await fn(item);
        done[i] = true;
      } catch (err) {
        stopped = true; // start no more requests
        if (err instanceof IndxError && err.code === "ai_quota_exceeded") {
          quota ??= err;
          return;
        }
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(NOTE_CONCURRENCY, items.length) }, worker));
  if (!quota) return out;
  const answered = out.filter((_, i) => done[i]);
  if (answered.length === 0) throw quota;
  warnings.push({
    code: "ai_quota_reached",
    message: `The daily cost cap (ai.daily_cost_usd) was reached after ${answered.length} of ${items.length} notes: those are returned, the other ${items.length - answered.length} were not asked for.`,
  });
  return answered;
}
