import { parsePriceEntry } from "../config/prices.ts";
import { IndxError } from "../core/errors.ts";
import type { ProviderName } from "./types.ts";

/** USD per million tokens. */
interface Rate {
  input: number;
  output: number;
}

export interface ModelPrice extends Rate {
  /**
   * Where the rate comes from. "free": Ollama. "unknown": a model neither the built-in table nor
   * ai.prices knows: with ai.daily_cost_usd set it is refused (ai_price_unknown) until ai.prices
   * names it; without a cap its calls cost 0 in results.
   */
  source: "free" | "config" | "builtin" | "unknown";
}

/** A model's price as ai_status shows it: per million tokens, with where it comes from. */
export function describePrice(p: ModelPrice): {
  input_per_mtok: number | null;
  output_per_mtok: number | null;
  source: ModelPrice["source"];
  read_on?: string;
} {
  if (p.source === "unknown") return { input_per_mtok: null, output_per_mtok: null, source: "unknown" };
  return { input_per_mtok: p.input, output_per_mtok: p.output, source: p.source, ...(p.source === "builtin" ? { read_on: BUILTIN_PRICES_READ } : {}) };
}

/**
 * The day the built-in table was read. Prices are the vendors' standard (not batch, not cached,
 * not long-context) list prices per million tokens, read on this day from the vendors' pricing
 * pages as quoted by price trackers (docs/decisions.md, "A cost cap that holds"). A model missing
 * here, or priced differently for you, goes in ai.prices.
 */
export const BUILTIN_PRICES_READ = "2026-11-27";

/** Chat models: USD per million input / output tokens. */
const BUILTIN: Record<string, Rate> = {
  // OpenAI
  "gpt-5.4": { input: 2.5, output: 15 },
  "gpt-5.4-mini": { input: 0.75, output: 4.5 },
  "gpt-5.4-nano": { input: 0.2, output: 1.25 },
  "gpt-5.2": { input: 1.75, output: 14 },
  "gpt-5.1": { input: 1.25, output: 10 },
  "gpt-5": { input: 1.25, output: 10 },
  "gpt-5-mini": { input: 0.25, output: 2 },
  "gpt-5-nano": { input: 0.05, output: 0.4 },
  "gpt-4.1": { input: 2, output: 8 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4 },
  "gpt-4o": { input: 2.5, output: 10 },
  "gpt-4o-mini": { input: 0.15, output: 0.6 },
  o3: { input: 2, output: 8 },
  "o3-mini": { input: 1.1, output: 4.4 },
  "o4-mini": { input: 1.1, output: 4.4 },
  o1: { input: 15, output: 60 },
  // Anthropic
  "claude-opus-4-6": { input: 5, output: 25 },
  "claude-opus-4-5": { input: 5, output: 25 },
  "claude-opus-4-1": { input: 15, output: 75 },
  "claude-opus-4": { input: 15, output: 75 },
  "claude-sonnet-4-6": { input: 3, output: 15 },
  "claude-sonnet-4-5": { input: 3, output: 15 },
  "claude-sonnet-4": { input: 3, output: 15 },
  "claude-haiku-4-5": { input: 1, output: 5 },
  "claude-3-5-haiku": { input: 0.8, output: 4 },
  "claude-3-haiku": { input: 0.25, output: 1.25 },
  // Google (prompts up to 200k tokens)
  "gemini-3.1-pro": { input: 2, output: 12 },
  "gemini-3-pro": { input: 2, output: 12 },
  "gemini-3-flash": { input: 0.5, output: 3 },
  "gemini-3.1-flash-lite": { input: 0.25, output: 1.5 },
  "gemini-2.5-pro": { input: 1.25, output: 10 },
  "gemini-2.5-flash": { input: 0.3, output: 2.5 },
  "gemini-2.5-flash-lite": { input: 0.1, output: 0.4 },
  // Embeddings (input only)
  "text-embedding-3-small": { input: 0.02, output: 0 },
  "text-embedding-3-large": { input: 0.13, output: 0 },
  "text-embedding-ada-002": { input: 0.1, output: 0 },
  "gemini-embedding-001": { input: 0.15, output: 0 },
};

/**
 * One spelling per model: the gateway's "anthropic/claude-haiku-4.5", Anthropic's dated
 * "claude-haiku-4-5-20251001" and a plain "claude-haiku-4-5" are the same price.
 */
function canonicalModel(model: string): string {
  return model
    .toLowerCase()
    .trim()
    .replace(/^.*\//, "")
    .replace(/(\d)\.(\d)/g, "$1-$2")
    .replace(/-(\d{4}-\d{2}-\d{2}|\d{8}|latest|preview)$/, "");
}

const BUILTIN_CANONICAL = new Map(Object.entries(BUILTIN).map(([m, r]) => [canonicalModel(m), r]));

/** Parses ai.prices ("model=input/output", USD per million tokens). Throws validation_failed naming the bad entry. */
export function parsePrices(entries: readonly string[]): Map<string, Rate> {
  const out = new Map<string, Rate>();
  for (const entry of entries) {
    const m = parsePriceEntry(entry);
    if (!m)
      throw new IndxError("validation_failed", `ai.prices: "${entry}" is not "model=input/output" (USD per million tokens, e.g. "my-model=0.5/1.5").`, {
        key: "ai.prices",
        entry,
      });
    out.set(canonicalModel(m.model), { input: m.input, output: m.output });
  }
  return out;
}

/** The rate of a chat model: a local Ollama is free; ai.prices wins over the built-in table. */
export function modelPrice(provider: ProviderName, model: string, configured: ReadonlyMap<string, Rate>): ModelPrice {
  if (provider === "ollama") return { input: 0, output: 0, source: "free" };
  const key = canonicalModel(model);
  const fromConfig = configured.get(key);
  if (fromConfig) return { ...fromConfig, source: "config" };
  const builtin = BUILTIN_CANONICAL.get(key);
  if (builtin) return { ...builtin, source: "builtin" };
  return { input: 0, output: 0, source: "unknown" };
}

/** The cost of one call, rounded to a hundred-millionth of a dollar (no float noise in outputs). */
export function costUsd(price: Rate, inputTokens: number, outputTokens: number): number {
  return Math.round(((inputTokens * price.input + outputTokens * price.output) / 1e6) * 1e8) / 1e8;
}
