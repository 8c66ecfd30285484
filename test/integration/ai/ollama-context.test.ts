import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config/load.ts";
import { IndxError } from "../../../src/core/errors.ts";
import { createChatProvider } from "../../../src/providers/providers.ts";
import { aiSettings, chatSettings } from "../../../src/providers/settings.ts";
import { DenyWall } from "../../../src/providers/wall.ts";
import { fakeChatEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";
import { ollamaContextOf } from "../../support/ollama-rules.ts";

/**
 * Ollama's context and grammar, held by the fake as the real server holds them
 * (test/support/ollama-rules.ts): 4,096 tokens unless num_ctx is sent, the front of a longer
 * prompt cut silently; a structured-output schema whose grammar repeats too much refused.
 */
const fake = startFakeAiServer();
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const config = (env: Record<string, string> = {}) =>
  loadConfig({ env: { HOME: "/nonexistent", INDX_CONFIG: "/nonexistent/config.toml", ...fakeChatEnv(fake, "ollama"), ...env } });
const ollama = (env: Record<string, string> = {}) => createChatProvider(chatSettings(config(env))!, () => DenyWall.open(), null);

const CITED = {
  type: "object",
  properties: {
    answer: { type: "string", maxLength: 40_000 },
    citations: {
      type: "array",
      maxItems: 1000,
      items: { type: "object", properties: { passage: { type: "string" }, quote: { type: "string" } }, required: ["passage", "quote"] },
    },
  },
  required: ["answer", "citations"],
};

/** A prompt whose first passage answers the question, followed by `fillerPassages` of unrelated text (~460 tokens each). */
function longPrompt(fillerPassages: number): string {
  const filler = "Sourdough starter wants flour and water at the same hour each morning, kept in a warm kitchen corner. ".repeat(18);
  return [
    "[P1] Garden/Tomatoes.md\nTomatoes need six hours of direct sun in the greenhouse.",
    ...Array.from({ length: fillerPassages }, (_, i) => `[P${i + 2}] Kitchen/Bread ${i}.md\n${filler}`),
    "[end of passages]",
    "Question: How many hours of sun do tomatoes need in the greenhouse?",
  ].join("\n");
}

describe("num_ctx", () => {
  test("a prompt longer than Ollama's default context is sent with a num_ctx that holds it and the reply: nothing is cut", async () => {
    const prompt = longPrompt(12);
    const res = await ollama().generate({ system: "Answer from the passages.", messages: [{ role: "user", content: prompt }], jsonSchema: CITED });
    const seen = ollamaContextOf(fake.chats[0]!)!;
    expect(seen.promptTokens).toBeGreaterThan(4096);
    expect(seen.sent).toBe(true);
    expect(seen.truncated).toBe(false);
    expect(seen.numCtx).toBeGreaterThanOrEqual(seen.promptTokens + 2048);
    // A power of two, so consecutive calls of similar size keep one loaded model.
    expect(Math.log2(seen.numCtx) % 1).toBe(0);
    // The model saw the passage that answers: the first one, which a cut would have dropped.
    expect((res.structured as { citations: { passage: string }[] }).citations[0]!.passage).toBe("P1");
  });

  test("a short prompt asks for Ollama's default context, not more", async () => {
    await ollama().generate({ system: "Be brief.", messages: [{ role: "user", content: "hello" }] });
    expect(ollamaContextOf(fake.chats[0]!)).toMatchObject({ numCtx: 4096, sent: true, truncated: false });
  });

  test("a prompt that would not fit ai.ollama_num_ctx_max is refused before it is sent (ai_input_too_large)", async () => {
    const chat = ollama({ INDX_OLLAMA_NUM_CTX_MAX: "8192" });
    const err = await chat.generate({ system: "s", messages: [{ role: "user", content: longPrompt(20) }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IndxError);
    expect((err as IndxError).code).toBe("ai_input_too_large");
    expect((err as IndxError).details).toMatchObject({ num_ctx_max: 8192, key: "ai.ollama_num_ctx_max" });
    expect(fake.chats).toHaveLength(0);
  });

  test("operations budget their prompts to what Ollama's context holds beside the reply", () => {
    const s = aiSettings(config({ INDX_OLLAMA_NUM_CTX_MAX: "8192" }));
    expect(s.maxInputTokens).toBeLessThanOrEqual(8192 - 2048);
    expect(s.maxInputTokens).toBeGreaterThan(5000);
    // Other providers keep ai.max_input_tokens.
    expect(aiSettings(config(fakeChatEnv(fake, "openai"))).maxInputTokens).toBe(64_000);
  });
});

describe("grammar limits", () => {
  test("the fake refuses a format whose grammar repeats too much, as Ollama does", async () => {
    const res = await fetch(`${fake.url}/api/chat`, {
      method: "POST",
      body: JSON.stringify({ model: "fake-chat", messages: [{ role: "user", content: "hi" }], format: CITED, stream: false }),
    });
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: string }).error).toContain("failed to parse grammar");
  });

  test("indx sends Ollama a schema without the bounds llama.cpp refuses; the reply is still checked against the whole schema", async () => {
    const res = await ollama().generate({ system: "s", messages: [{ role: "user", content: longPrompt(0) }], jsonSchema: CITED });
    const sent = fake.chats[0]!.schema as { properties: Record<string, Record<string, unknown>> };
    expect(sent.properties.answer).toEqual({ type: "string" });
    expect(sent.properties.citations!.maxItems).toBeUndefined();
    expect(res.structured).toBeDefined();
  });

  test("small bounds stay in the grammar", async () => {
    const schema = {
      type: "object",
      properties: { title: { type: "string", maxLength: 200 }, tags: { type: "array", items: { type: "string" }, maxItems: 20 } },
    };
    await ollama().generate({ system: "s", messages: [{ role: "user", content: "hi" }], jsonSchema: schema });
    expect(fake.chats[0]!.schema).toEqual(schema);
  });
});
