import { describe, expect, test } from "bun:test";
import { costUsd, modelPrice, parsePrices } from "../../../src/providers/pricing.ts";

const none = new Map<string, { input: number; output: number }>();

describe("chat model prices", () => {
  test("a local Ollama is free, whatever ai.prices says", () => {
    expect(modelPrice("ollama", "gpt-4o", parsePrices(["gpt-4o=9/9"]))).toEqual({ input: 0, output: 0, source: "free" });
  });

  test("well-known models are priced under any of their spellings", () => {
    expect(modelPrice("openai", "gpt-4o-mini", none)).toEqual({ input: 0.15, output: 0.6, source: "builtin" });
    expect(modelPrice("openai", "gpt-4o-mini-2024-07-18", none).source).toBe("builtin");
    expect(modelPrice("vercel-ai-gateway", "anthropic/claude-haiku-4.5", none)).toEqual({ input: 1, output: 5, source: "builtin" });
    expect(modelPrice("vercel-ai-gateway", "anthropic/claude-haiku-4-5", none).input).toBe(1);
    expect(modelPrice("openai", "claude-3-5-haiku-20241022", none).input).toBe(0.8);
    expect(modelPrice("openai", "openai/gpt-4.1-mini", none)).toEqual({ input: 0.4, output: 1.6, source: "builtin" });
  });

  test("ai.prices adds models and overrides the table", () => {
    const prices = parsePrices(["gpt-4o-mini = 1/2", "my-local-model=0.5/1.5"]);
    expect(modelPrice("openai", "gpt-4o-mini", prices)).toEqual({ input: 1, output: 2, source: "config" });
    expect(modelPrice("openai", "My-Local-Model", prices)).toEqual({ input: 0.5, output: 1.5, source: "config" });
  });

  test("an unknown model costs 0 and is marked unknown", () => {
    expect(modelPrice("openai", "mystery-7b", none)).toEqual({ input: 0, output: 0, source: "unknown" });
  });

  test("a malformed entry is validation_failed naming it", () => {
    expect(() => parsePrices(["gpt-4o: 1/2"])).toThrow(/"gpt-4o: 1\/2" is not "model=input\/output"/);
    expect(() => parsePrices(["gpt-4o=1"])).toThrow(/ai.prices/);
  });

  test("cost is per million tokens, without float noise", () => {
    expect(costUsd({ input: 0.15, output: 0.6 }, 1_000_000, 1_000_000)).toBe(0.75);
    expect(costUsd({ input: 0.15, output: 0.6 }, 4123, 218)).toBe(0.00074925);
    expect(costUsd({ input: 0, output: 0 }, 4123, 218)).toBe(0);
  });
});
