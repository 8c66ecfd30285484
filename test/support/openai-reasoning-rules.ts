/**
 * OpenAI's reasoning models (the o-series, gpt-5 and later) refuse parameters other chat models
 * take, with a 400 in OpenAI's error shape: `max_tokens` ("Use 'max_completion_tokens'
 * instead") and any temperature but the default 1. The fake OpenAI holds requests for models
 * named like them to the same rules (docs/decisions.md, "OpenAI reasoning models").
 */

/** Model ids the fake treats as reasoning models: o1, o3-mini, o4-mini, gpt-5, gpt-5.1-mini, "openai/gpt-5" on a gateway. */
export const isFakeReasoningModel = (model: string | null): boolean => model !== null && /^(?:openai\/)?(?:o\d|gpt-5)/i.test(model);

/** The fake's refusal of a chat completions body a reasoning model would refuse, or null. */
export function reasoningRefusal(model: string | null, body: Record<string, unknown>): Response | null {
  if (!isFakeReasoningModel(model)) return null;
  if (body.max_tokens !== undefined)
    return refusal(
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      "max_tokens",
      "unsupported_parameter",
    );
  if (body.temperature !== undefined && body.temperature !== 1)
    return refusal(
      `Unsupported value: 'temperature' does not support ${String(body.temperature)} with this model. Only the default (1) value is supported.`,
      "temperature",
      "unsupported_value",
    );
  return null;
}

const refusal = (message: string, param: string, code: string) =>
  Response.json({ error: { message, type: "invalid_request_error", param, code } }, { status: 400 });
