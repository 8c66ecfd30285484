import { IndxError } from "../core/errors.ts";
import type { ProviderName } from "./types.ts";

/** USD per million tokens. */
interface Rate {
  input: number;
  output: number;
}

export interface ModelPrice extends Rate {
  /**
   * Where the rate comes from. "free": a local Ollama. "unknown": a model neither the built-in
   * table nor ai.prices knows; it counts as free, so a daily ceiling cannot stop it (ai_status
   * says so).
   */
  source: "free" | "config" | "builtin" | "unknown";
}

/** List prices of well-known chat models as published by their vendors (docs/decisions.md, AI cost). */
const BUILTIN: Record<string, Rate> = {
  "gpt-4o": { input: 2.5, output: 10 },
  "gpt-4o-mini": { input: 0.15, output: 0.6 },
  "gpt-4.1": { input: 2, output: 8 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4 },
  "gpt-5": { input: 1.25, output: 10 },
  "gpt-5-mini": { input: 0.25, output: 2 },
  "gpt-5-nano": { input: 0.05, output: 0.4 },
  "o4-mini": { input: 1.1, output: 4.4 },
  "claude-haiku-4-5": { input: 1, output: 5 },
  "claude-sonnet-4": { input: 3, output: 15 },
  "claude-sonnet-4-5": { input: 3, output: 15 },
  "claude-opus-4-1": { input: 15, output: 75 },
  "claude-3-5-haiku": { input: 0.8, output: 4 },
  "gemini-2.5-flash": { input: 0.3, output: 2.5 },
  "gemini-2.5-flash-lite": { input: 0.1, output: 0.4 },
  "gemini-2.5-pro": { input: 1.25, output: 10 },
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
    .replace(/-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/, "");
}

const BUILTIN_CANONICAL = new Map(Object.entries(BUILTIN).map(([m, r]) => [canonicalModel(m), r]));

const PRICE_ENTRY = /^\s*([^=\s][^=]*?)\s*=\s*(\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)\s*$/;

/** Parses ai.prices ("model=input/output", USD per million tokens). Throws validation_failed naming the bad entry. */
export function parsePrices(entries: readonly string[]): Map<string, Rate> {
  const out = new Map<string, Rate>();
  for (const entry of entries) {
    const m = PRICE_ENTRY.exec(entry);
    if (!m)
      throw new IndxError("validation_failed", `ai.prices: "${entry}" is not "model=input/output" (USD per million tokens, e.g. "my-model=0.5/1.5").`, {
        key: "ai.prices",
        entry,
      });
    out.set(canonicalModel(m[1]!), { input: Number(m[2]), output: Number(m[3]) });
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
