import { IndxError } from "../core/errors.ts";
import { costUsd, type ModelPrice } from "./pricing.ts";
import type { ChatSettings, EmbeddingsSettings } from "./settings.ts";
import type { SpendLedger } from "./spend.ts";
import { estimateTokens } from "./tokens.ts";
import { type ChatProvider, type ChatRequest, type EmbeddingProvider, ProviderError } from "./types.ts";

/**
 * The cost cap at the provider boundary (docs/decisions.md, "A cost cap that holds"): every
 * request holds its worst case — the prompt's tokens (estimated high, src/providers/tokens.ts) and the
 * whole output allowance, at the model's price — in the ledger before it is sent, and is settled
 * to the cost the provider reports after. A reply without usage settles at the hold. Holding is
 * one write transaction across threads and processes, so a day can go over its cap by one
 * request's worst case at most.
 */
export interface MeterSource {
  ledger: () => SpendLedger;
  /** ai.daily_cost_usd; null: no cap (requests are still counted and priced). */
  cap: number | null;
}

/** Tokens a chat request's framing adds to its texts (roles, message separators). */
const MESSAGE_OVERHEAD_TOKENS = 8;

/** A model without a price cannot be held against a cap: refused until ai.prices names it. */
function priceUnknown(provider: string, model: string): IndxError {
  return new IndxError(
    "ai_price_unknown",
    `ai.daily_cost_usd is set but ${provider}/${model} has no known price, so its cost could not be capped; add it to ai.prices ("${model}=<input>/<output>" USD per million tokens).`,
    { provider, model, fix: `add "${model}=<input>/<output>" to ai.prices` },
  );
}

function checkPriced(price: ModelPrice, cap: number | null, provider: string, model: string): void {
  if (cap !== null && price.source === "unknown") throw priceUnknown(provider, model);
}

/** The worst case of a chat request: every prompt token and the whole output allowance. */
export function chatWorstCase(s: ChatSettings, req: ChatRequest): { inputTokens: number; outputTokens: number; usd: number } {
  const texts = [req.system, ...req.messages.map((m) => m.content), req.jsonSchema ? JSON.stringify(req.jsonSchema) : ""];
  const inputTokens = texts.reduce((n, t) => n + estimateTokens(t) + MESSAGE_OVERHEAD_TOKENS, 0);
  const outputTokens = Math.min(req.maxOutputTokens ?? s.maxOutputTokens, s.maxOutputTokens);
  return { inputTokens, outputTokens, usd: costUsd(s.price, inputTokens, outputTokens) };
}

/**
 * A failure the provider may still bill: it timed out, or cut the reply off, after the request
 * reached it. A refusal (4xx), a server error or no connection costs nothing.
 */
const mayHaveBilled = (err: unknown) => !(err instanceof ProviderError) || err.kind === "timeout" || err.kind === "bad_response";

export function meteredChat(inner: ChatProvider, s: ChatSettings, meter: MeterSource): ChatProvider {
  return {
    provider: inner.provider,
    model: inner.model,
    generate: async (req) => {
      checkPriced(s.price, meter.cap, s.provider, s.model);
      const worst = chatWorstCase(s, req);
      const hold = meter.ledger().hold(meter.cap, worst.usd);
      let result: Awaited<ReturnType<ChatProvider["generate"]>>;
      try {
        result = await inner.generate(req);
      } catch (err) {
        hold.settle(mayHaveBilled(err) ? worst.usd : 0);
        throw err;
      }
      if (result.usageReported !== false) {
        hold.settle(result.usage.cost_usd);
        return result;
      }
      // No usage in the reply: it cost what was held, as far as anyone can tell.
      hold.settle(worst.usd);
      return { ...result, usage: { ...result.usage, cost_usd: worst.usd } };
    },
  };
}

/** Embedding requests hold and settle their estimated input (the embedding APIs bill input tokens only). */
export function meteredEmbeddings(inner: EmbeddingProvider, s: EmbeddingsSettings, meter: MeterSource): EmbeddingProvider {
  // A free model (Ollama, or priced 0) costs nothing and is never stopped by what chat spent;
  // its batches stay out of the ledger (an index run of a large vault makes hundreds).
  if (s.price.source !== "unknown" && s.price.input === 0) return inner;
  return {
    provider: inner.provider,
    model: inner.model,
    embed: async (texts, signal, origin) => {
      checkPriced(s.price, meter.cap, s.provider, s.model);
      const usd = embeddingCost(s.price, texts);
      const hold = meter.ledger().hold(meter.cap, usd);
      try {
        const out = await inner.embed(texts, signal, origin);
        hold.settle(usd);
        return out;
      } catch (err) {
        hold.settle(mayHaveBilled(err) ? usd : 0);
        throw err;
      }
    },
  };
}

/** The estimated cost of embedding these texts (input tokens at the model's price). */
export function embeddingCost(price: ModelPrice, texts: readonly string[]): number {
  if (price.input === 0) return 0;
  return costUsd(
    price,
    texts.reduce((n, t) => n + estimateTokens(t), 0),
    0,
  );
}
