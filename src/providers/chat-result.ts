import { costUsd } from "./pricing.ts";
import { parseReplyJson } from "./reply-json.ts";
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

/**
 * The most bytes a chat reply may take on the wire: generous for the output cap (a streamed token
 * costs a few hundred bytes of SSE or NDJSON framing), so only a server that sends far more than
 * it was asked for reaches it (docs/decisions.md, "AI replies that cannot block the server").
 */
export const maxReplyBytes = (maxOutputTokens: number): number => Math.min(64 * 1024 * 1024, Math.max(4 * 1024 * 1024, maxOutputTokens * 1024));

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
  const structured = req.jsonSchema ? parseReplyJson(r.text) : undefined;
  return {
    text: r.text,
    ...(structured === undefined ? {} : { structured }),
    usage: { input_tokens: input, output_tokens: output, cost_usd: costUsd(s.price, input, output) },
    finish_reason: r.finish,
    streamed: r.streamed,
    usageReported: r.inputTokens !== undefined || r.outputTokens !== undefined,
  };
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

/**
 * Pieces of a stream that arrive together (a burst already in the socket's buffer) are iterated
 * as microtasks, which never let the event loop turn: a 1 MB answer in 1,000 pieces kept /health
 * waiting for the whole of it. The returned function, awaited after each piece, gives the loop
 * a turn whenever the stream has had it for `sliceMs` (docs/decisions.md, "AI replies that cannot
 * block the server").
 */
export function loopTurns(sliceMs = 8): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    since = performance.now();
  };
}
