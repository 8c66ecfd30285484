import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { type AiStatusDeps, aiStatus, aiSummary } from "../../../src/ai/ops/status-ops.ts";
import type { AiRole } from "../../../src/ops/define.ts";
import type { AiSettings, ChatSettings, EmbeddingsSettings } from "../../../src/providers/settings.ts";

/**
 * ai_status with a fake AI runtime: no vault on disk, no model server. An operation names the
 * part of the context it uses (AiStatusDeps), so this is all it needs (docs/architecture.md).
 */
function settings(over: Partial<AiSettings> = {}): AiSettings {
  return {
    enabled: true,
    chat: null,
    embeddings: null,
    maxInputTokens: 64000,
    maxOutputTokens: 2000,
    temperature: 0.2,
    allowGlobs: [],
    denyGlobs: [],
    cache: { enabled: true, ttlSeconds: 3600 },
    dailyCostUsd: 5,
    timeoutMs: 60000,
    ...over,
  };
}

function fakeRuntime(s: AiSettings | Error): AiStatusDeps & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    // No vectors stored: ai_status reports no dimension without calling a provider.
    embeddings: { settings: () => null, vectors: () => null },
    ai: {
      settings() {
        calls.push("settings");
        if (s instanceof Error) throw s;
        return s;
      },
      offers(role: AiRole) {
        if (s instanceof Error || !s.enabled) return false;
        return role === "chat" ? s.chat !== null : role === "embeddings" ? s.embeddings !== null : s.chat !== null || s.embeddings !== null;
      },
      cache: {
        stats: () => {
          calls.push("cache");
          return { entries: 3, hits_24h: 2, size_bytes: 4096 };
        },
      },
      spend: {
        today: () => 0.25,
        requestsToday: () => 7,
      },
    },
  };
}

const chat: ChatSettings = {
  provider: "openai",
  baseUrl: "http://127.0.0.1:1/v1",
  apiKey: null,
  model: "gpt-test",
  timeoutMs: 1000,
  temperature: 0.2,
  maxOutputTokens: 2000,
  numCtxMax: 16_384,
  price: { input: 0, output: 0, source: "unknown" },
  fixtures: null,
};
const embeddings: EmbeddingsSettings = {
  provider: "ollama",
  baseUrl: "http://127.0.0.1:1",
  apiKey: null,
  model: "embed-test",
  batchSize: 8,
  concurrency: 1,
  timeoutMs: 1000,
  price: { input: 0, output: 0, source: "free" },
};

describe("ai_status on a fake AI runtime", () => {
  test("a chat model offers every operation whose declared need it serves; the figures are the runtime's", async () => {
    const out = await aiStatus.run(fakeRuntime(settings({ chat })), {});
    expect(Value.Check(aiStatus.output, out)).toBe(true);
    expect(out.operations).toEqual(["ai_status", "ai_summarize", "ai_ask", "ai_toc", "ai_extract", "ai_tag", "ai_metadata", "ai_relate"]);
    expect(out.chat).toEqual({ provider: "openai", model: "gpt-test", price: { input_per_mtok: null, output_per_mtok: null, source: "unknown" } });
    // An unpriced model is named, with the fix.
    expect(out.warnings.map((w) => w.code)).toEqual(["ai_price_unknown"]);
    expect(out.cache).toEqual({ enabled: true, entries: 3, hits_24h: 2, size_bytes: 4096 });
    expect(out.spend_today_usd).toBe(0.25);
    expect(out.message).toBeUndefined();
  });

  test("embeddings alone offer only what runs without chat", async () => {
    const out = await aiStatus.run(fakeRuntime(settings({ embeddings })), {});
    expect(out.operations).toEqual(["ai_status", "ai_relate"]);
    expect(out.embeddings).toEqual({
      provider: "ollama",
      model: "embed-test",
      price: { input_per_mtok: 0, output_per_mtok: 0, source: "free" },
      dimension: null,
    });
  });

  test("off, unconfigured or half-configured: no operations, the reason as the message, the cache not opened", async () => {
    const off = fakeRuntime(settings({ enabled: false, chat }));
    expect(await aiStatus.run(off, {})).toMatchObject({ enabled: false, operations: [], message: "The AI runtime is turned off (ai.enabled = false)." });
    expect(off.calls).not.toContain("cache");
    const none = await aiStatus.run(fakeRuntime(settings()), {});
    expect(none).toMatchObject({ enabled: false, operations: [] });
    expect(none.message).toContain("No model is configured");
    const half = await aiStatus.run(fakeRuntime(new Error("INDX_AI_MODEL is set but INDX_AI_PROVIDER is not.")), {});
    expect(half).toMatchObject({ enabled: false, operations: [], message: "INDX_AI_MODEL is set but INDX_AI_PROVIDER is not." });
    expect(Value.Check(aiStatus.output, half)).toBe(true);
  });

  test("vault_status's AI summary reads the same runtime", () => {
    expect(aiSummary(fakeRuntime(settings({ chat })))).toEqual({
      enabled: true,
      chat: "openai/gpt-test",
      requests_today: 7,
      cache_hits_24h: 2,
      spend_today_usd: 0.25,
    });
  });
});
