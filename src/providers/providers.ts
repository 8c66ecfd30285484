import { join } from "node:path";
import { IndxError } from "../core/errors.ts";
import { type MeterSource, meteredChat, meteredEmbeddings } from "./meter.ts";
import { withRecordReplay } from "./record-replay.ts";
import type { ChatSettings, EmbeddingsSettings } from "./settings.ts";
import type { ChatProvider, ChatRequest, EmbeddingProvider } from "./types.ts";
import { type WallSource, walledChat, walledEmbeddings } from "./wall.ts";

/*
 * The provider clients (the `ollama` package, the AI SDK) load on the first request, not at
 * start: most commands never talk to a model, and a CLI search must not pay for their import.
 */
const loadOllama = () => import("./ollama.ts");
const loadOpenAI = () => import("./openai.ts");

/**
 * Every provider is built behind the deny wall (src/providers/wall.ts): there is no way to get a client
 * that sends without passing it.
 */
export function createEmbeddingProvider(s: EmbeddingsSettings, wall: WallSource, meter: MeterSource | null): EmbeddingProvider {
  let inner: Promise<EmbeddingProvider> | null = null;
  const client = () =>
    (inner ??= s.provider === "ollama" ? loadOllama().then((m) => new m.OllamaEmbeddings(s)) : loadOpenAI().then((m) => new m.OpenAIEmbeddings(s)));
  const live: EmbeddingProvider = {
    provider: s.provider,
    model: s.model,
    embed: async (texts: string[], signal?: AbortSignal) => (await client()).embed(texts, signal),
  };
  // The wall first: a request it refuses never holds money.
  return walledEmbeddings(meter ? meteredEmbeddings(live, s, meter) : live, wall);
}

/**
 * The chat provider of the settings; under AI_TEST_RECORD / AI_TEST_REPLAY it records or replays
 * fixtures in ai.fixtures_dir, else `<dataDir>/ai-fixtures`.
 */
export function createChatProvider(s: ChatSettings, wall: WallSource, meter: MeterSource | null, dataDir: string | null = null, what = "chat"): ChatProvider {
  let inner: Promise<ChatProvider> | null = null;
  const client = () => (inner ??= s.provider === "ollama" ? loadOllama().then((m) => new m.OllamaChat(s)) : loadOpenAI().then((m) => new m.OpenAIChat(s)));
  const live: ChatProvider = {
    provider: s.provider,
    model: s.model,
    generate: async (req: ChatRequest) => (await client()).generate(req),
  };
  const metered = (p: ChatProvider) => (meter ? meteredChat(p, s, meter) : p);
  if (!s.fixtures) return walledChat(metered(live), wall, what);
  const dir = s.fixtures.dir ?? (dataDir ? join(dataDir, "ai-fixtures") : null);
  if (!dir)
    throw new IndxError("validation_failed", "AI_TEST_RECORD / AI_TEST_REPLAY need a fixtures folder: set INDX_AI_FIXTURES_DIR.", {
      key: "ai.fixtures_dir",
    });
  return walledChat(metered(withRecordReplay(live, s, s.fixtures.mode, dir)), wall, what);
}
