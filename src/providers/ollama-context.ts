import { IndxError } from "../core/errors.ts";
import { estimateTokens } from "./tokens.ts";
import type { ChatMessage } from "./types.ts";

/**
 * Ollama's context window (docs/decisions.md, "Ollama: num_ctx sized to the prompt"). Ollama
 * gives a model 4,096 tokens unless a request sends `num_ctx`, and a longer prompt is cut from
 * the front without an error: the model then answers without the passages it was given. So every
 * call sends a `num_ctx` that holds its prompt and its longest reply, and a prompt that would not
 * fit in `ai.ollama_num_ctx_max` is refused before it is sent (the operations budget their prompts
 * to ollamaInputBudget, so they map-reduce or trim first and this refusal is the last guard).
 */

/** What Ollama uses when no num_ctx is sent (on most machines): asking for less saves nothing. */
export const OLLAMA_DEFAULT_NUM_CTX = 4096;

/** Tokens a chat template adds: role markers around each message, and the reply's header. */
const TEMPLATE_TOKENS = 32;
const TEMPLATE_TOKENS_PER_MESSAGE = 8;

/** The prompt of one chat call as Ollama will tokenize it, counted on the safe side (src/providers/tokens.ts). */
export function ollamaPromptTokens(system: string, messages: ChatMessage[]): number {
  let tokens = TEMPLATE_TOKENS + estimateTokens(system) + TEMPLATE_TOKENS_PER_MESSAGE;
  for (const m of messages) tokens += estimateTokens(m.content) + TEMPLATE_TOKENS_PER_MESSAGE;
  return tokens;
}

/**
 * The num_ctx to send: the prompt plus the longest reply, rounded up to a power of two (Ollama
 * reloads a model whenever num_ctx changes, so coarse steps let consecutive calls share the
 * loaded one), at least Ollama's default and at most `max`. ai_input_too_large when it cannot fit.
 */
export function numCtxFor(promptTokens: number, maxOutputTokens: number, max: number): number {
  const needed = promptTokens + maxOutputTokens;
  if (needed > max)
    throw new IndxError(
      "ai_input_too_large",
      `The prompt needs ${needed} tokens of context (with the reply), more than ai.ollama_num_ctx_max (${max}); narrow the scope or raise the limit.`,
      { tokens: needed, num_ctx_max: max, key: "ai.ollama_num_ctx_max" },
    );
  let size = OLLAMA_DEFAULT_NUM_CTX;
  while (size < needed) size *= 2;
  return Math.min(size, max);
}

/**
 * What operations leave unbudgeted around the passages they count (a style line, "Question:",
 * the newlines between passages, the estimate of a whole text exceeding the sum of its parts).
 */
const UNBUDGETED_TOKENS = 256;

/** The prompt budget of an operation talking to Ollama: what fits beside the longest reply, the template and what operations do not count. */
export function ollamaInputBudget(numCtxMax: number, maxOutputTokens: number): number {
  return Math.max(0, numCtxMax - maxOutputTokens - TEMPLATE_TOKENS - 2 * TEMPLATE_TOKENS_PER_MESSAGE - UNBUDGETED_TOKENS);
}
