import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config/load.ts";
import { isReasoningModel } from "../../../src/providers/openai-reasoning.ts";
import { createChatProvider } from "../../../src/providers/providers.ts";
import { chatSettings } from "../../../src/providers/settings.ts";
import type { ProviderName } from "../../../src/providers/types.ts";
import { DenyWall } from "../../../src/providers/wall.ts";
import { fakeChatEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";

/** OpenAI's reasoning models refuse max_tokens and temperature 0; the fake refuses them too (test/support/openai-reasoning-rules.ts). */
const fake = startFakeAiServer();
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

function chat(provider: ProviderName, model: string) {
  const env = { HOME: "/nonexistent", INDX_CONFIG: "/nonexistent/config.toml", ...fakeChatEnv(fake, provider), INDX_AI_MODEL: model };
  return createChatProvider(chatSettings(loadConfig({ env }))!, () => DenyWall.open(), null);
}

const SCHEMA = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"], additionalProperties: false };

describe.each([
  ["openai", "gpt-5-mini"],
  ["openai", "o4-mini"],
  ["vercel-ai-gateway", "openai/gpt-5.1"],
] as const)("%s %s", (provider, model) => {
  test("a call sends its output cap as max_completion_tokens and no temperature, and the model answers", async () => {
    const res = await chat(provider, model).generate({ system: "s", messages: [{ role: "user", content: "hi" }], jsonSchema: SCHEMA, maxOutputTokens: 300 });
    expect(res.structured).toEqual({ answer: "ok" });
    expect(fake.chats[0]).toMatchObject({ model, maxTokens: 300, temperature: null });
  });

  test("a streamed call too", async () => {
    const deltas: string[] = [];
    const res = await chat(provider, model).generate({ system: "s", messages: [{ role: "user", content: "hi" }], onDelta: (d) => deltas.push(d) });
    expect(res.text).toBe("ok");
    expect(fake.chats[0]).toMatchObject({ stream: true, maxTokens: 2048, temperature: null });
  });
});

test("the fake refuses max_tokens and temperature 0 for a reasoning model, in OpenAI's error shape", async () => {
  const post = (body: Record<string, unknown>) =>
    fetch(`${fake.openaiUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer sk-test-fake" },
      body: JSON.stringify({ model: "gpt-5-mini", messages: [{ role: "user", content: "hi" }], ...body }),
    });
  const tokens = await post({ max_tokens: 10 });
  expect(tokens.status).toBe(400);
  expect(await tokens.json()).toMatchObject({ error: { type: "invalid_request_error", param: "max_tokens", code: "unsupported_parameter" } });
  const temperature = await post({ temperature: 0 });
  expect(await temperature.json()).toMatchObject({ error: { param: "temperature", code: "unsupported_value" } });
});

test("other models keep max_tokens and the configured temperature", async () => {
  await chat("openai", "fake-chat").generate({ system: "s", messages: [{ role: "user", content: "hi" }] });
  expect(fake.chats[0]).toMatchObject({ maxTokens: 2048, temperature: 0 });
});

test("which names are reasoning models", () => {
  for (const m of ["o1", "o3-mini", "o4-mini-2025-04-16", "gpt-5", "gpt-5-nano", "gpt-5.1", "gpt-5.2-pro", "openai/gpt-5.1", "openai/o3"])
    expect(isReasoningModel(m)).toBe(true);
  for (const m of ["gpt-4o", "gpt-4.1-mini", "llama3.1", "olmo-2", "anthropic/claude-haiku-4-5", "omni-moderation-latest", "qwen3:8b"])
    expect(isReasoningModel(m)).toBe(false);
});
