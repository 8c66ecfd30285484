import { OllamaChat, OllamaEmbeddings } from "./ollama.ts";
import { OpenAIChat, OpenAIEmbeddings } from "./openai.ts";
import type { ChatSettings, EmbeddingsSettings } from "./settings.ts";
import type { ChatProvider, EmbeddingProvider } from "./types.ts";

export function createEmbeddingProvider(s: EmbeddingsSettings): EmbeddingProvider {
  return s.provider === "ollama" ? new OllamaEmbeddings(s) : new OpenAIEmbeddings(s);
}

export function createChatProvider(s: ChatSettings): ChatProvider {
  return s.provider === "ollama" ? new OllamaChat(s) : new OpenAIChat(s);
}
