/**
 * OpenAI's reasoning models (o1, o3, o4-mini, gpt-5 and its point releases) refuse `max_tokens`
 * ("Use 'max_completion_tokens' instead") and any temperature but the default, where other
 * chat models take both; the AI SDK's OpenAI-compatible provider always sends `max_tokens` and the
 * temperature it is given. For a model named like one, the request body is rewritten before it
 * is sent (docs/decisions.md, "OpenAI reasoning models"). The name decides because an
 * OpenAI-compatible server does not say what a model is; on the Vercel AI Gateway OpenAI's models
 * are named `openai/…`.
 */

export const isReasoningModel = (model: string): boolean => /^(?:openai\/)?(?:o\d+(?:$|-)|gpt-5)/i.test(model);

/** The chat completions body for a reasoning model: its output cap as max_completion_tokens, no temperature. */
export function reasoningBody(body: Record<string, unknown>): Record<string, unknown> {
  const { max_tokens: maxTokens, temperature: _temperature, ...rest } = body;
  return maxTokens === undefined ? rest : { ...rest, max_completion_tokens: maxTokens };
}
