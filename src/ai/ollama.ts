import { Ollama } from "ollama";
import { providerFetch } from "./http.ts";
import type { ChatSettings, EmbeddingsSettings } from "./settings.ts";
import { type ChatProvider, type ChatRequest, checkVectors, classifyError, type EmbeddingProvider, ProviderError } from "./types.ts";

/**
 * Ollama through the official `ollama` client: batched /api/embed, falling back to one
 * /api/embeddings call per text on servers older than 0.3 (which answer /api/embed with a plain
 * 404), and /api/chat with `format` for structured replies.
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

  async generate(req: ChatRequest): Promise<{ text: string }> {
    const client = new Ollama({ host: this.s.baseUrl, fetch: providerFetch(this.s.timeoutMs, req.signal) });
    try {
      const res = await client.chat({
        model: this.model,
        stream: false,
        messages: [
          { role: "system", content: req.system },
          { role: "user", content: req.prompt },
        ],
        ...(req.jsonSchema ? { format: req.jsonSchema } : {}),
        options: { temperature: 0, seed: 0, ...(req.maxOutputTokens ? { num_predict: req.maxOutputTokens } : {}) },
      });
      if (typeof res?.message?.content !== "string") throw new ProviderError("bad_response", "ollama chat: no message in the reply");
      return { text: res.message.content };
    } catch (err) {
      throw classifyError(err, "ollama chat");
    }
  }
}
