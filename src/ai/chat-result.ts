import { costUsd } from "./pricing.ts";
import type { ChatSettings } from "./settings.ts";
import type { ChatRequest, ChatResult, FinishReason } from "./types.ts";

/** The sampling options of one call: the request's, else the configured defaults, the output capped by the settings. */
export function callOptions(s: ChatSettings, req: ChatRequest): { temperature: number; seed: number; maxOutputTokens: number } {
  return {
    temperature: req.temperature ?? s.temperature,
    seed: req.seed ?? 0,
    maxOutputTokens: Math.min(req.maxOutputTokens ?? s.maxOutputTokens, s.maxOutputTokens),
  };
}

export interface RawReply {
  text: string;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  finish: FinishReason;
  streamed: boolean;
}

export function chatResult(s: ChatSettings, req: ChatRequest, r: RawReply): ChatResult {
  const input = r.inputTokens ?? 0;
  const output = r.outputTokens ?? 0;
  const structured = req.jsonSchema ? parseJson(r.text) : undefined;
  return {
    text: r.text,
    ...(structured === undefined ? {} : { structured }),
    usage: { input_tokens: input, output_tokens: output, cost_usd: costUsd(s.price, input, output) },
    finish_reason: r.finish,
    streamed: r.streamed,
    usageReported: r.inputTokens !== undefined || r.outputTokens !== undefined,
  };
}

/** The reply as JSON, also when a model wrapped it in prose or a code fence; undefined when it is not JSON. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const m = /\{[\s\S]*\}/.exec(text);
    if (!m) return undefined;
    try {
      return JSON.parse(m[0]);
    } catch {
      return undefined;
    }
  }
}

/**
 * What the caller's onDelta threw, carried through the provider's error classification so it
 * reaches the caller as itself rather than as a provider failure.
 */
export class DeltaCallbackError {
  constructor(readonly error: unknown) {}
}

export function deliver(onDelta: (text: string) => void, text: string): void {
  try {
    onDelta(text);
  } catch (err) {
    throw new DeltaCallbackError(err);
  }
}
