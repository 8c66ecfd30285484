import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { embedMany, generateText, type JSONValue, type FinishReason as SdkFinishReason, streamText } from "ai";
import { callOptions, chatResult, DeltaCallbackError, deliver, loopTurns, maxReplyBytes } from "./chat-result.ts";
import type { FetchLimits } from "./http.ts";
import { providerFetch } from "./http.ts";
import { isReasoningModel, reasoningBody } from "./openai-reasoning.ts";
import type { ChatSettings, EmbeddingsSettings, Endpoint } from "./settings.ts";
import {
  type ChatProvider,
  type ChatRequest,
  type ChatResult,
  checkVectors,
  classifyError,
  type EmbeddingProvider,
  type FinishReason,
  ProviderError,
  type ProviderName,
} from "./types.ts";

/**
 * Any OpenAI-compatible endpoint (OpenAI, the Vercel AI Gateway, LM Studio, vLLM, llama.cpp,
 * Ollama's /v1) through the AI SDK. Streams ask for the final usage chunk (stream_options).
 */
function sdk(e: Endpoint, timeoutMs: number, signal?: AbortSignal, chatModel?: string, limits?: FetchLimits) {
  return createOpenAICompatible({
    name: "indx",
    baseURL: e.baseUrl,
    ...(e.apiKey ? { apiKey: e.apiKey } : {}),
    supportsStructuredOutputs: true,
    includeUsage: true,
    fetch: providerFetch(timeoutMs, signal, limits),
    ...(chatModel && isReasoningModel(chatModel) ? { transformRequestBody: reasoningBody } : {}),
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

/** The chat role of openai and vercel-ai-gateway: both speak the OpenAI chat completions protocol. */
export class OpenAIChat implements ChatProvider {
  readonly provider: ProviderName;
  readonly model: string;

  constructor(private readonly s: ChatSettings) {
    this.provider = s.provider;
    this.model = s.model;
  }

  async generate(req: ChatRequest): Promise<ChatResult> {
    const o = callOptions(this.s, req);
    const limits = { idle: req.onDelta !== undefined, maxBytes: maxReplyBytes(o.maxOutputTokens) };
    const call = {
      model: sdk(this.s, this.s.timeoutMs, req.signal, this.model, limits).chatModel(this.model),
      system: req.system,
      messages: req.messages,
      temperature: o.temperature,
      seed: o.seed,
      maxOutputTokens: o.maxOutputTokens,
      maxRetries: 0,
      abortSignal: req.signal,
      // The schema goes as the request's response_format, not as the SDK's `output`: with an output
      // the SDK re-parses the whole reply as partial JSON on every streamed delta, which is
      // quadratic in the reply (a deeply nested one blocked the server for seconds); the reply is
      // parsed once, bounded, in chatResult (docs/decisions.md, "AI replies that cannot block the server").
      ...(req.jsonSchema ? { providerOptions: { indx: { response_format: responseFormat(req.jsonSchema, req.strictSchema !== false) } } } : {}),
    };
    try {
      if (req.onDelta) return await this.stream(call, req, req.onDelta);
      const res = await generateText(call);
      return chatResult(this.s, req, {
        text: res.text,
        inputTokens: res.usage.inputTokens,
        outputTokens: res.usage.outputTokens,
        finish: finishReason(res.finishReason),
        streamed: false,
      });
    } catch (err) {
      if (err instanceof DeltaCallbackError) throw err.error;
      throw classifyError(unwrap(err), `${this.provider} chat`);
    }
  }

  /** streamText reports failures as stream parts, not rejections: each is rethrown here. */
  private async stream(call: Parameters<typeof streamText>[0], req: ChatRequest, onDelta: (text: string) => void): Promise<ChatResult> {
    // The default onError prints to the console, which is the MCP channel of `indx mcp`.
    const res = streamText({ ...call, onError: () => {} });
    let text = "";
    const turn = loopTurns();
    for await (const part of res.fullStream) {
      await turn();
      if (part.type === "text-delta") {
        text += part.text;
        deliver(onDelta, part.text);
      } else if (part.type === "error") throw part.error;
      else if (part.type === "abort") throw new ProviderError("timeout", `${this.provider} chat: the request was cancelled`);
      else if (part.type === "finish")
        return chatResult(this.s, req, {
          text,
          inputTokens: part.totalUsage.inputTokens,
          outputTokens: part.totalUsage.outputTokens,
          finish: finishReason(part.finishReason),
          streamed: true,
        });
    }
    throw new ProviderError("bad_response", `${this.provider} chat: the stream ended before the reply was done`);
  }
}

/** Structured outputs as OpenAI's chat completions take them (and as the AI SDK would have sent them). */
function responseFormat(schema: Record<string, unknown>, strict: boolean): JSONValue {
  // The schema is plain JSON (src/ai/provider-schema.ts), which the type cannot know. `strict` is
  // false only for a schema OpenAI's strict mode cannot take (src/ai/session.ts).
  return { type: "json_schema", json_schema: { schema: schema as JSONValue, strict, name: "response" } };
}

/** Tool calls and "other" never end a reply we asked for (no tools are offered), so they count as a stop. */
function finishReason(r: SdkFinishReason): FinishReason {
  if (r === "length") return "length";
  if (r === "content-filter") return "content_filter";
  if (r === "error") return "error";
  return "stop";
}

/** The AI SDK wraps errors (RetryError, APICallError): find the one with a status code. */
function unwrap(err: unknown): unknown {
  let e = err as { lastError?: unknown; cause?: unknown; statusCode?: number; responseBody?: string; message?: string } | undefined;
  for (let i = 0; i < 4 && e; i++) {
    // Ours first: a body our fetch failed (timeout, size) reaches here wrapped in an error of status 200.
    if (e instanceof ProviderError) return e;
    if (e.cause instanceof ProviderError) return e.cause;
    if (typeof e.statusCode === "number") {
      const body = typeof e.responseBody === "string" ? e.responseBody : "";
      return { status: e.statusCode, message: /model/i.test(body) && e.statusCode === 404 ? "model not found" : (e.message ?? "") };
    }
    e = (e.lastError ?? e.cause) as typeof e;
  }
  return err;
}
