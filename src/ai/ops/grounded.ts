import { IndxError } from "../../core/errors.ts";
import type { OpContext } from "../../ops/context.ts";
import type { Warning } from "../../ops/schemas.ts";
import type { Citation } from "../citations.ts";
import type { Passage } from "../passages.ts";
import { type AiScope, resolveScope } from "../scope.ts";

/** Helpers the grounded operations share: budgets, the scope fingerprint, warnings, streaming. */

/**
 * The passages, best first, that fit the prompt next to `fixedTokens` of instructions and
 * question; ai_input_too_large when not even the first one does.
 */
export function fitToBudget(passages: Passage[], maxInputTokens: number, fixedTokens: number): Passage[] {
  let used = fixedTokens;
  const kept: Passage[] = [];
  for (const p of passages) {
    if (used + p.tokens > maxInputTokens) break;
    used += p.tokens;
    kept.push(p);
  }
  const [first] = passages;
  if (kept.length === 0 && first) requireFits(fixedTokens + first.tokens, maxInputTokens);
  return kept;
}

/** ai_input_too_large (with the tokens needed) when a prompt that cannot be cut would exceed ai.max_input_tokens. */
export function requireFits(tokens: number, maxInputTokens: number): void {
  if (tokens > maxInputTokens)
    throw new IndxError("ai_input_too_large", `The prompt needs ${tokens} tokens, more than ai.max_input_tokens (${maxInputTokens}); narrow the scope.`, {
      tokens,
      max_input_tokens: maxInputTokens,
    });
}

/** The notes a scope names that the AI globs allow; a scope with none is not_found. What the globs kept out is a warning. */
export async function notesInScope(ctx: OpContext, scope: AiScope, warnings: Warning[]): Promise<string[]> {
  const resolved = await resolveScope(ctx, scope, ctx.ai.globs());
  if (resolved.excluded.length) warnings.push(excludedWarning(resolved.excluded.length));
  if (resolved.paths.length === 0) throw new IndxError("not_found", "The scope holds no note the AI runtime may read.", { excluded: resolved.excluded.length });
  return resolved.paths;
}

export function groundingFailed(dropped: readonly { passage: string; reason: string }[]): IndxError {
  return new IndxError("ai_grounding_failed", "No citation of the model's answer survived verification, so no answer is returned.", {
    dropped: dropped.slice(0, 50),
  });
}

/** The notes behind some passages, each at the version read: sorted, one entry per note. */
export function pinned(passages: readonly Passage[]): { path: string; etag: string }[] {
  const byPath = new Map(passages.map((p) => [p.path, p.etag]));
  return [...byPath].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([path, etag]) => ({ path, etag }));
}

export function excludedWarning(count: number): Warning {
  return {
    code: "globs_excluded",
    message: `${count} note${count === 1 ? " was" : "s were"} left out by the AI allow/deny globs; no model saw ${count === 1 ? "its" : "their"} text.`,
  };
}

/** Each verified citation, as it is known, to a caller that streams. */
export function streamCitations(ctx: OpContext, citations: readonly Citation[]): void {
  if (!ctx.aiStream) return;
  for (const citation of citations) ctx.aiStream({ type: "ai.citation", citation });
}

/**
 * A result's text, once it is whole and grounded, to a caller that streams (ai_toc): one
 * `ai.partial` with the text, then its citations. Nothing unverified is in it, so nothing sent
 * is ever withdrawn.
 */
export function streamText(ctx: OpContext, text: string, citations: readonly Citation[]): void {
  if (!ctx.aiStream) return;
  if (text) ctx.aiStream({ type: "ai.partial", delta: text });
  streamCitations(ctx, citations);
}

/** Warnings that repeat (a citation warning per key point, tag, field or edge) said once. */
export function uniqueWarnings(warnings: readonly Warning[]): Warning[] {
  const seen = new Set<string>();
  return warnings.filter((w) => {
    const key = `${w.code}\u0000${w.path ?? ""}\u0000${w.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
