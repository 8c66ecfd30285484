import type { ChatSettings, EmbeddingsSettings } from "./settings.ts";
import type { ChatProvider, ChatRequest, EmbeddingProvider } from "./types.ts";

/*
 * The provider clients (the `ollama` package, the AI SDK) load on the first request, not at
 * start: most commands never talk to a model, and a CLI search must not pay for their import.
 */
const loadOllama = () => import("./ollama.ts");
const loadOpenAI = () => import("./openai.ts");

export function createEmbeddingProvider(s: EmbeddingsSettings): EmbeddingProvider {
  let inner: Promise<EmbeddingProvider> | null = null;
  const client = () =>
    (inner ??= s.provider === "ollama" ? loadOllama().then((m) => new m.OllamaEmbeddings(s)) : loadOpenAI().then((m) => new m.OpenAIEmbeddings(s)));
  return {
    provider: s.provider,
    model: s.model,
    embed: async (texts: string[], signal?: AbortSignal) => (await client()).embed(texts, signal),
  };
}

export function createChatProvider(s: ChatSettings): ChatProvider {
  let inner: Promise<ChatProvider> | null = null;
  const client = () => (inner ??= s.provider === "ollama" ? loadOllama().then((m) => new m.OllamaChat(s)) : loadOpenAI().then((m) => new m.OpenAIChat(s)));
  return {
    provider: s.provider,
    model: s.model,
    generate: async (req: ChatRequest) => (await client()).generate(req),
  };
}
