import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { providerSchema } from "../../../src/ai/provider-schema.ts";
import { loadConfig } from "../../../src/config/load.ts";
import { createChatProvider } from "../../../src/providers/providers.ts";
import { chatSettings } from "../../../src/providers/settings.ts";
import { type ChatProvider, type ChatRequest, ProviderError, type ProviderName } from "../../../src/providers/types.ts";
import { DenyWall } from "../../../src/providers/wall.ts";
import { FAKE_GATEWAY_KEY, fakeChatEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";

const fake = startFakeAiServer();
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

function provider(name: ProviderName, env: Record<string, string> = {}): ChatProvider {
  const config = loadConfig({ env: { HOME: "/nonexistent", INDX_CONFIG: "/nonexistent/config.toml", ...fakeChatEnv(fake, name), ...env } });
  return createChatProvider(chatSettings(config)!, () => DenyWall.open(), null);
}

async function failure(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderError);
    return err as ProviderError;
  }
  throw new Error("expected the call to fail");
}

const ask = (content: string, more: Partial<ChatRequest> = {}): ChatRequest => ({
  system: "You answer from the passages only.",
  messages: [{ role: "user", content }],
  ...more,
});

const ANSWER_SCHEMA = {
  type: "object",
  properties: {
    answer: { type: "string" },
    supported: { type: "boolean" },
    citations: {
      type: "array",
      items: {
        type: "object",
        properties: { passage: { type: "string" }, quote: { type: "string" } },
        required: ["passage", "quote"],
        additionalProperties: false,
      },
    },
  },
  required: ["answer", "supported", "citations"],
  additionalProperties: false,
};

const PASSAGES = [
  "[P1] Garden/Tomatoes.md § Care",
  "Tomatoes need six hours of sun. Water them deeply twice a week.",
  "[P2] Kitchen/Bread.md § Starter",
  "Feed the sourdough starter with flour and water every day.",
  "[end of passages]",
].join("\n");

describe.each(["ollama", "openai", "vercel-ai-gateway"] as const)("chat provider %s against the fake", (name) => {
  const protocol = name === "ollama" ? "ollama" : "openai";

  test("text: system and messages reach the server, with the default sampling options", async () => {
    const chat = provider(name);
    const res = await chat.generate({
      system: "Be brief.",
      messages: [
        { role: "user", content: "first question" },
        { role: "assistant", content: "first answer" },
        { role: "user", content: "second question" },
      ],
    });
    expect(res).toMatchObject({ text: "ok", finish_reason: "stop", streamed: false });
    expect(res.structured).toBeUndefined();
    expect(fake.chats).toHaveLength(1);
    const seen = fake.chats[0]!;
    expect(seen).toMatchObject({ protocol, system: "Be brief.", stream: false, temperature: 0, seed: 0, maxTokens: 2048, schema: null });
    expect(seen.messages).toEqual([
      { role: "user", content: "first question" },
      { role: "assistant", content: "first answer" },
      { role: "user", content: "second question" },
    ]);
    expect(seen.text).toBe("Be brief.\nfirst question\nfirst answer\nsecond question");
  });

  test("a request's temperature, seed and output cap reach the server; the configured cap cannot be exceeded", async () => {
    const chat = provider(name, { INDX_AI_MAX_OUTPUT_TOKENS: "500" });
    await chat.generate(ask("q", { temperature: 0.5, seed: 7, maxOutputTokens: 100 }));
    await chat.generate(ask("q", { maxOutputTokens: 10_000 }));
    expect(fake.chats.map((c) => [c.temperature, c.seed, c.maxTokens])).toEqual([
      [0.5, 7, 100],
      [0, 0, 500],
    ]);
  });

  test("structured output: the schema reaches the server and the reply is parsed; the default reply cites a passage verbatim", async () => {
    const res = await provider(name).generate(ask(`Question: how much sun do tomatoes need?\n\n${PASSAGES}`, { jsonSchema: ANSWER_SCHEMA }));
    expect(fake.chats[0]!.schema).toMatchObject({ properties: { citations: { type: "array" } } });
    expect(res.structured).toEqual({
      answer: "Tomatoes need six hours of sun.",
      supported: true,
      citations: [{ passage: "P1", quote: "Tomatoes need six hours of sun." }],
    });
    expect(JSON.parse(res.text)).toEqual(res.structured);
  });

  test("usage comes from the server's counts and is priced", async () => {
    fake.scriptChat({ content: "fine", usage: { input: 1234, output: 56 } });
    const res = await provider(name, { INDX_AI_PRICES: "fake-chat=2/10" }).generate(ask("q"));
    // Ollama is free; the gateway's model is in the built-in table (1/5 USD per million tokens).
    const cost = { ollama: 0, openai: (1234 * 2 + 56 * 10) / 1e6, "vercel-ai-gateway": (1234 * 1 + 56 * 5) / 1e6 }[name];
    expect(res.usage).toEqual({ input_tokens: 1234, output_tokens: 56, cost_usd: cost });
  });

  test('a reply cut off at the token cap says finish_reason "length", streamed or not, and has no structured value', async () => {
    const cut = '{"answer":"Tomatoes need six hou';
    fake.scriptChat({ content: cut, finishReason: "length" }, { content: cut, finishReason: "length" });
    const plain = await provider(name).generate(ask("q", { jsonSchema: ANSWER_SCHEMA }));
    const streamed = await provider(name).generate(ask("q", { jsonSchema: ANSWER_SCHEMA, onDelta: () => {} }));
    for (const res of [plain, streamed]) {
      expect(res).toMatchObject({ text: cut, finish_reason: "length" });
      expect(res.structured).toBeUndefined();
    }
  });

  // Ollama has no content filter: its done_reason is stop, length, load or unload.
  if (protocol === "openai")
    test("a content filter stop comes through", async () => {
      fake.scriptChat({ content: "", finishReason: "content_filter" });
      expect((await provider(name).generate(ask("q"))).finish_reason).toBe("content_filter");
    });

  test("streaming: deltas arrive while the model is still writing, then the whole result with usage", async () => {
    fake.scriptChat({ content: "alpha beta gamma delta", chunks: 4, chunkDelayMs: 150, usage: { input: 9, output: 4 } });
    const deltas: { text: string; at: number }[] = [];
    const res = await provider(name).generate(ask("q", { onDelta: (text) => deltas.push({ text, at: performance.now() }) }));
    const done = performance.now();
    expect(fake.chats[0]!.stream).toBe(true);
    expect(deltas.length).toBe(4);
    expect(deltas.map((d) => d.text).join("")).toBe("alpha beta gamma delta");
    // Three gaps of 150 ms were still to come when the first delta arrived.
    expect(done - deltas[0]!.at).toBeGreaterThanOrEqual(400);
    expect(res).toMatchObject({ text: "alpha beta gamma delta", streamed: true, finish_reason: "stop" });
    expect(res.usage).toMatchObject({ input_tokens: 9, output_tokens: 4 });
  });

  test("an exception in onDelta reaches the caller as itself", async () => {
    class Stop extends Error {}
    const err = await provider(name)
      .generate(
        ask("q", {
          onDelta: () => {
            throw new Stop("consumer gone");
          },
        }),
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stop);
  });

  test("5xx is ai_provider_error, also with a body that is not JSON", async () => {
    fake.scriptChat({ status: 500 }, { status: 502, rawBody: "<html>Bad Gateway</html>" }, { status: 503 });
    for (const status of [500, 502]) {
      const err = await failure(provider(name).generate(ask("q")));
      expect(err).toMatchObject({ kind: "server", status, code: "ai_provider_error" });
    }
    expect(await failure(provider(name).generate(ask("q", { onDelta: () => {} })))).toMatchObject({ kind: "server", code: "ai_provider_error" });
  });

  test("a body that is not the protocol's JSON is ai_provider_error", async () => {
    fake.scriptChat({ rawBody: "this is not json" });
    expect((await failure(provider(name).generate(ask("q")))).code).toBe("ai_provider_error");
  });

  test("a server that does not answer in time is ai_unavailable (timeout)", async () => {
    fake.scriptChat({ hang: true }, { content: "slow", chunks: 3, chunkDelayMs: 5_000 });
    const started = performance.now();
    expect(await failure(provider(name, { INDX_AI_TIMEOUT_MS: "300" }).generate(ask("q")))).toMatchObject({ kind: "timeout", code: "ai_unavailable" });
    // A stream that falls silent longer than the timeout is cut, however long ago it started.
    expect(await failure(provider(name, { INDX_AI_TIMEOUT_MS: "300" }).generate(ask("q", { onDelta: () => {} })))).toMatchObject({ kind: "timeout" });
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  test("a stream is timed by its silences, not its length: one that keeps coming past the timeout is not cut", async () => {
    fake.scriptChat({ content: "a long answer that keeps coming", chunks: 6, chunkDelayMs: 250 });
    const deltas: string[] = [];
    const res = await provider(name, { INDX_AI_TIMEOUT_MS: "1000" }).generate(ask("q", { onDelta: (d) => deltas.push(d) }));
    expect(res.text).toBe("a long answer that keeps coming");
    expect(deltas.length).toBeGreaterThan(1);
  });

  test("a reply larger than indx reads is reply_too_large (ai_provider_error), and the rest is never read", async () => {
    const huge = "x".repeat(5 * 1024 * 1024);
    for (const stream of [false, true]) {
      fake.scriptChat({ content: huge, chunks: 100 });
      const err = await failure(provider(name).generate(ask("q", stream ? { onDelta: () => {} } : {})));
      expect(err).toMatchObject({ kind: "reply_too_large", code: "ai_provider_error" });
    }
  });

  test("a reply nested deeper than any reply schema is reply_too_large, streamed or not", async () => {
    const deep = `{"answer":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    for (const stream of [false, true]) {
      fake.scriptChat({ content: deep, chunks: 50 });
      const err = await failure(provider(name).generate(ask("q", { jsonSchema: ANSWER_SCHEMA, ...(stream ? { onDelta: () => {} } : {}) })));
      expect(err).toMatchObject({ kind: "reply_too_large", code: "ai_provider_error" });
    }
  });

  test("a 429 is rate_limited with the provider's Retry-After", async () => {
    fake.scriptChat({ status: 429, retryAfter: "17" });
    const err = await failure(provider(name).generate(ask("q")));
    expect(err).toMatchObject({ kind: "rate_limited", code: "rate_limited", retryAfterS: 17 });
  });

  test("the caller's signal cancels a call, before and during a stream", async () => {
    fake.scriptChat({ hang: true }, { content: "slow reply", chunks: 2, chunkDelayMs: 5_000 });
    const started = performance.now();
    const early = new AbortController();
    setTimeout(() => early.abort(), 100);
    expect((await failure(provider(name).generate(ask("q", { signal: early.signal })))).kind).toBe("timeout");
    const during = new AbortController();
    const deltas: string[] = [];
    const call = provider(name).generate(
      ask("q", {
        signal: during.signal,
        onDelta: (t) => {
          deltas.push(t);
          during.abort();
        },
      }),
    );
    expect((await failure(call)).kind).toBe("timeout");
    expect(deltas).toEqual(["slow "]);
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  test("a model the server lacks is ai_unavailable (model_missing)", async () => {
    const err = await failure(provider(name, { INDX_AI_MODEL: "no-such-model" }).generate(ask("q")));
    expect(err).toMatchObject({ kind: "model_missing", code: "ai_unavailable" });
  });
});

describe("provider specifics", () => {
  test("the gateway sends its key as a bearer token; a wrong key is an auth failure", async () => {
    fake.knobs.apiKey = FAKE_GATEWAY_KEY;
    await provider("vercel-ai-gateway").generate(ask("q"));
    expect(fake.chats[0]!.authorization).toBe(`Bearer ${FAKE_GATEWAY_KEY}`);
    const err = await failure(provider("vercel-ai-gateway", { INDX_AI_GATEWAY_KEY: "vck_wrong" }).generate(ask("q")));
    expect(err).toMatchObject({ kind: "auth", code: "ai_provider_error" });
    expect(err.message).not.toContain("vck_wrong");
  });

  test("an Ollama that answers a streaming request in one piece: the text arrives once and streamed is false", async () => {
    fake.scriptChat({ content: "all at once", noStream: true });
    const deltas: string[] = [];
    const res = await provider("ollama").generate(ask("q", { onDelta: (t) => deltas.push(t) }));
    expect(deltas).toEqual(["all at once"]);
    expect(res).toMatchObject({ text: "all at once", streamed: false });
  });

  test("a reply that is not JSON where JSON was asked: the text, no structured value", async () => {
    for (const name of ["ollama", "openai"] as const) {
      fake.scriptChat({ content: "I would rather not." });
      const res = await provider(name).generate(ask("q", { jsonSchema: ANSWER_SCHEMA }));
      expect(res.text).toBe("I would rather not.");
      expect(res.structured).toBeUndefined();
    }
  });

  test("a schema that breaks OpenAI's strict-mode rules is refused as api.openai.com refuses it: 400, invalid_request_error on response_format", async () => {
    const loose = { type: "object", properties: { answer: { type: "string", maxLength: 20_000 }, note: { type: "string" } }, required: ["answer"] };
    for (const name of ["openai", "vercel-ai-gateway"] as const) {
      const err = await failure(provider(name).generate(ask("q", { jsonSchema: loose })));
      expect(err.status).toBe(400);
      expect(err.code).toBe("ai_provider_error");
    }
    const res = await fetch(`${fake.openaiUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-test-fake" },
      body: JSON.stringify({
        model: "fake-chat",
        messages: [{ role: "user", content: "q" }],
        response_format: { type: "json_schema", json_schema: { name: "response", strict: true, schema: loose } },
      }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; type: string; param: string; code: null } };
    expect(body.error).toMatchObject({ type: "invalid_request_error", param: "response_format", code: null });
    expect(body.error.message).toContain("Invalid schema for response_format 'response'");
    // The same schema as the runtime sends it (src/ai/provider-schema.ts) is accepted.
    expect((await provider("openai").generate(ask("q", { jsonSchema: providerSchema(loose).schema }))).structured).toBeDefined();
  });

  test("a scripted function answers what the queue does not", async () => {
    fake.onChat((c) => ({ content: { echo: c.messages.at(-1)!.content } }));
    fake.scriptChat({ content: { first: true } });
    const chat = provider("ollama");
    expect((await chat.generate(ask("one", { jsonSchema: { type: "object" } }))).structured).toEqual({ first: true });
    expect((await chat.generate(ask("two", { jsonSchema: { type: "object" } }))).structured).toEqual({ echo: "two" });
  });

  test("the default reply fills arrays of cited objects and says unsupported when no passage shares a word", async () => {
    const schema = {
      type: "object",
      properties: {
        supported: { type: "boolean" },
        key_points: {
          type: "array",
          items: {
            type: "object",
            properties: {
              text: { type: "string" },
              citations: { type: "array", items: { type: "object", properties: { passage: { type: "string" }, quote: { type: "string" } } } },
            },
          },
        },
      },
    };
    const sourdough = await provider("ollama").generate(ask(`Task: summarise the sourdough notes.\n\n${PASSAGES}`, { jsonSchema: schema }));
    expect(sourdough.structured).toEqual({
      supported: true,
      key_points: [
        {
          text: "Feed the sourdough starter with flour and water every day.",
          citations: [{ passage: "P2", quote: "Feed the sourdough starter with flour and water every day." }],
        },
      ],
    });
    const unrelated = await provider("ollama").generate(ask(`Question: who won the chess match?\n\n${PASSAGES}`, { jsonSchema: schema }));
    expect((unrelated.structured as { supported: boolean }).supported).toBe(false);
  });
});
