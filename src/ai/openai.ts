import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { embedMany, generateText, jsonSchema, Output } from "ai";
import { providerFetch } from "./http.ts";
import type { ChatSettings, EmbeddingsSettings, Endpoint } from "./settings.ts";
import { type ChatProvider, type ChatRequest, checkVectors, classifyError, type EmbeddingProvider } from "./types.ts";

/** Any OpenAI-compatible endpoint (OpenAI, LM Studio, vLLM, llama.cpp, Ollama's /v1) through the AI SDK. */
function sdk(e: Endpoint, timeoutMs: number, signal?: AbortSignal) {
  return createOpenAICompatible({
    name: "indx",
    baseURL: e.baseUrl,
    ...(e.apiKey ? { apiKey: e.apiKey } : {}),
    supportsStructuredOutputs: true,
    fetch: providerFetch(timeoutMs, signal),
  });
}

export class OpenAIEmbeddings implements EmbeddingProvider {
  readonly provider = "openai" as const;
  readonly model: string;

  constructor(private readonly s: EmbeddingsSettings) {
    this.model = s.model;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    if (texts.length === 0) return [];
    try {
      const res = await embedMany({
        model: sdk(this.s, this.s.timeoutMs, signal).embeddingModel(this.model),
        values: texts,
        // Our job batches, retries and bounds concurrency itself.
        maxRetries: 0,
        maxParallelCalls: 1,
        abortSignal: signal,
      });
      return checkVectors(res.embeddings, texts.length, "openai embeddings");
    } catch (err) {
      throw classifyError(unwrap(err), "openai embeddings");
    }
  }
}

export class OpenAIChat implements ChatProvider {
  readonly provider = "openai" as const;
  readonly model: string;

  constructor(private readonly s: ChatSettings) {
    this.model = s.model;
  }

  async generate(req: ChatRequest): Promise<{ text: string }> {
    try {
      const res = await generateText({
        model: sdk(this.s, this.s.timeoutMs, req.signal).chatModel(this.model),
        system: req.system,
        prompt: req.prompt,
        temperature: 0,
        seed: 0,
        maxRetries: 0,
        abortSignal: req.signal,
        ...(req.maxOutputTokens ? { maxOutputTokens: req.maxOutputTokens } : {}),
        ...(req.jsonSchema ? { output: Output.object({ schema: jsonSchema(req.jsonSchema) }) } : {}),
      });
      return { text: res.text };
    } catch (err) {
      throw classifyError(unwrap(err), "openai chat");
    }
  }
}

/** The AI SDK wraps errors (RetryError, APICallError): find the one with a status code. */
function unwrap(err: unknown): unknown {
  let e = err as { lastError?: unknown; cause?: unknown; statusCode?: number; responseBody?: string; message?: string } | undefined;
  for (let i = 0; i < 4 && e; i++) {
    if (typeof e.statusCode === "number") {
      const body = typeof e.responseBody === "string" ? e.responseBody : "";
      return { status: e.statusCode, message: /model/i.test(body) && e.statusCode === 404 ? "model not found" : (e.message ?? "") };
    }
    if ((e as { name?: string }).name === "ProviderError") return e;
    e = (e.lastError ?? e.cause) as typeof e;
  }
  return err;
}
