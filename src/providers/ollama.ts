import { type ChatResponse, Ollama, type ChatRequest as OllamaChatRequest } from "ollama";
import { callOptions, chatResult, DeltaCallbackError, deliver, loopTurns, maxReplyBytes } from "./chat-result.ts";
import { providerFetch } from "./http.ts";
import { numCtxFor, ollamaPromptTokens } from "./ollama-context.ts";
import { grammarSafeSchema } from "./ollama-schema.ts";
import type { ChatSettings, EmbeddingsSettings } from "./settings.ts";
import {
  type ChatProvider,
  type ChatRequest,
  type ChatResult,
  checkVectors,
  classifyError,
  type EmbeddingProvider,
  type FinishReason,
  ProviderError,
} from "./types.ts";

/**
 * Ollama through the official `ollama` client: batched /api/embed, falling back to one
 * /api/embeddings call per text on servers older than 0.3 (which answer /api/embed with a plain
 * 404), and /api/chat with `format` for structured replies, streamed as NDJSON when asked.
 */
export class OllamaEmbeddings implements EmbeddingProvider {
  readonly provider = "ollama" as const;
  readonly model: string;
  /** Set once the server has shown it has no /api/embed. */
  private legacy = false;

  constructor(private readonly s: EmbeddingsSettings) {
    this.model = s.model;
  }

  private client(signal?: AbortSignal, timeoutMs = this.s.timeoutMs): Ollama {
    return new Ollama({ host: this.s.baseUrl, fetch: providerFetch(timeoutMs, signal) });
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    if (texts.length === 0) return [];
    if (!this.legacy) {
      try {
        const res = await this.client(signal).embed({ model: this.model, input: texts, truncate: true });
        return checkVectors(res.embeddings, texts.length, "ollama embed");
      } catch (err) {
        const e = classifyError(err, "ollama embed");
        // A 404 that does not name the model is the route missing: an older Ollama.
        if (!(e.kind === "rejected" && e.status === 404)) throw e;
        this.legacy = true;
      }
    }
    const client = this.client(signal);
    const out: number[][] = [];
    for (const prompt of texts) {
      try {
        const res = await client.embeddings({ model: this.model, prompt });
        out.push(res.embedding);
      } catch (err) {
        throw classifyError(err, "ollama embeddings");
      }
    }
    return checkVectors(out, texts.length, "ollama embeddings");
  }
}

export class OllamaChat implements ChatProvider {
  readonly provider = "ollama" as const;
  readonly model: string;

  constructor(private readonly s: ChatSettings) {
    this.model = s.model;
  }

  async generate(req: ChatRequest): Promise<ChatResult> {
    const o = callOptions(this.s, req);
    const limits = { idle: req.onDelta !== undefined, maxBytes: maxReplyBytes(o.maxOutputTokens) };
    const client = new Ollama({ host: this.s.baseUrl, fetch: providerFetch(this.s.timeoutMs, req.signal, limits) });
    // Before the request: a prompt Ollama would cut is refused here, never sent (src/providers/ollama-context.ts).
    const numCtx = numCtxFor(ollamaPromptTokens(req.system, req.messages), o.maxOutputTokens, this.s.numCtxMax);
    const body = {
      model: this.model,
      messages: [{ role: "system", content: req.system }, ...req.messages],
      ...(req.jsonSchema ? { format: grammarSafeSchema(req.jsonSchema) } : {}),
      options: { temperature: o.temperature, seed: o.seed, num_predict: o.maxOutputTokens, num_ctx: numCtx },
    };
    try {
      if (req.onDelta) return await this.stream(client, body, req, req.onDelta);
      const res = await client.chat({ ...body, stream: false });
      if (typeof res?.message?.content !== "string") throw new ProviderError("bad_response", "ollama chat: no message in the reply");
      return chatResult(this.s, req, { ...usage(res), text: res.message.content, streamed: false });
    } catch (err) {
      if (err instanceof DeltaCallbackError) throw err.error;
      throw classifyError(err, "ollama chat");
    }
  }

  /** stream: true is NDJSON: content in parts with done: false, then one part with done: true and the counts. */
  private async stream(client: Ollama, body: ChatRequestBody, req: ChatRequest, onDelta: (text: string) => void): Promise<ChatResult> {
    const parts = await client.chat({ ...body, stream: true });
    let text = "";
    let streamed = false;
    let last: ChatResponse | null = null;
    const turn = loopTurns();
    try {
      for await (const part of parts) {
        await turn();
        const piece = part.message?.content ?? "";
        if (!part.done) streamed = true;
        if (piece) {
          text += piece;
          deliver(onDelta, piece);
        }
        if (part.done) last = part;
      }
    } catch (err) {
      parts.abort();
      throw err;
    }
    if (!last) throw new ProviderError("bad_response", "ollama chat: the stream ended before the reply was done");
    return chatResult(this.s, req, { ...usage(last), text, streamed });
  }
}

type ChatRequestBody = Omit<OllamaChatRequest, "stream">;

function usage(res: ChatResponse): { inputTokens: number | undefined; outputTokens: number | undefined; finish: FinishReason } {
  return { inputTokens: res.prompt_eval_count, outputTokens: res.eval_count, finish: res.done_reason === "length" ? "length" : "stop" };
}
