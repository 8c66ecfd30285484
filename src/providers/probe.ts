import type { ChatProvider, EmbeddingProvider } from "./types.ts";
import { classifyError } from "./types.ts";

export interface ProbeResult {
  ok: boolean;
  dimension: number | null;
  latency_ms: number;
  /** Why it failed, as a kind (unreachable, model_missing, …) and a message without secrets. */
  error: { kind: string; message: string } | null;
}

/** Embeds one fixed word to learn whether the provider answers and the model's dimension. */
export async function probeEmbeddings(provider: EmbeddingProvider, timeoutMs = 5000): Promise<ProbeResult> {
  const started = performance.now();
  try {
    const [v] = await provider.embed(["indx"], AbortSignal.timeout(timeoutMs));
    // No vector is an unexpected answer: classifyError below reports it as bad_response.
    if (!v) throw new Error("the provider returned no vector");
    return { ok: true, dimension: v.length, latency_ms: Math.round(performance.now() - started), error: null };
  } catch (err) {
    const e = classifyError(err, `${provider.provider} ${provider.model}`);
    return { ok: false, dimension: null, latency_ms: Math.round(performance.now() - started), error: { kind: e.kind, message: e.message } };
  }
}

/**
 * Asks the chat model for a one-word reply (a few tokens, so a paid model costs a fraction of a
 * cent): whether the server answers, has the model and takes the credentials. Any reply counts,
 * also an empty one cut at the cap (a reasoning model may spend the cap thinking).
 */
export async function probeChat(provider: ChatProvider, timeoutMs = 10_000): Promise<Omit<ProbeResult, "dimension">> {
  const started = performance.now();
  try {
    await provider.generate({
      system: "Reply with the single word OK.",
      messages: [{ role: "user", content: "ping" }],
      maxOutputTokens: 16,
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { ok: true, latency_ms: Math.round(performance.now() - started), error: null };
  } catch (err) {
    const e = classifyError(err, `${provider.provider} ${provider.model}`);
    return { ok: false, latency_ms: Math.round(performance.now() - started), error: { kind: e.kind, message: e.message } };
  }
}
