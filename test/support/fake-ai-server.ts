/**
 * A fake Ollama + OpenAI-compatible server for tests and benchmarks (docs/decisions.md, Embeddings
 * and semantic search): the real provider code (the `ollama` client, the AI SDK) talks to it over
 * HTTP. Embeddings are deterministic, dense and similarity-preserving: random indexing over the
 * words (lowercased, crude stemming, stopwords dropped), L2-normalised, so texts sharing words are
 * near. Chat (test/support/fake-chat.ts) speaks both protocols, streaming included, with scripted
 * or schema-shaped replies. Every request is logged for assertions, and knobs make it fail, slow
 * down, refuse big batches or act like an Ollama older than /api/embed.
 */

import type { ProviderName } from "../../src/providers/types.ts";
import { type ChatReply, type ChatScript, chatResponse, type FakeChat, parseChat } from "./fake-chat.ts";
import { fakeTokens } from "./fake-words.ts";
import { ollamaChatRules } from "./ollama-rules.ts";
import { reasoningRefusal } from "./openai-reasoning-rules.ts";
import { refuseStrictSchema } from "./openai-strict.ts";

export interface FakeRequest {
  /** e.g. "/api/embed", "/v1/embeddings". */
  path: string;
  model: string | null;
  /** Number of texts in an embedding request. */
  inputs: number;
  /** The texts embedded (tests check which chunks were sent). */
  texts: string[];
  /** An embedding request that was answered with vectors. */
  ok?: boolean;
}

export interface FakeKnobs {
  /** Fail every embedding/chat request with this status (e.g. 500, 503). 0: off. */
  failStatus: number;
  /** Fail only the next N requests (then recover), with failStatus or 503. */
  failNext: number;
  /** Fail every embedding request after this many have succeeded (an interruption). 0: off. */
  failAfter: number;
  /** Delay before answering, ms. */
  delayMs: number;
  /** Extra delay before answering a chat request, ms (a slow reranker). */
  chatDelayMs: number;
  /** Refuse embedding requests with more inputs than this (413 for OpenAI, 400 for Ollama). 0: off. */
  maxBatch: number;
  /** Act like an Ollama older than 0.3: /api/embed is a plain 404. */
  legacyOllama: boolean;
  /** Chat replies that are not JSON (rerank must fall back). */
  garbageChat: boolean;
  /**
   * Hold Ollama chat requests to Ollama's context and grammar rules (test/support/ollama-rules.ts).
   * false: a lenient server, for benchmarks of an indx from before it sent num_ctx.
   */
  ollamaRules: boolean;
  /** An API key the OpenAI routes require (Bearer). null: none. */
  apiKey: string | null;
  /**
   * Words the embeddings treat as another word (lowercased): a model that knows synonyms, so
   * vectors find what words alone cannot. null: none.
   */
  synonyms: Record<string, string> | null;
}

export interface FakeAiServer {
  url: string;
  /** Base URL for the OpenAI-compatible routes (…/v1). */
  openaiUrl: string;
  requests: FakeRequest[];
  /** Every chat request, in order, with the text that reached the "provider". */
  chats: FakeChat[];
  /**
   * Every byte every request brought, in order: method, URL, headers and body as received
   * (the deny wall's canary suite looks for note text in all of it).
   */
  received: string[];
  knobs: FakeKnobs;
  /** Queues replies for the next chat requests, one each (then the script, then the default). */
  scriptChat(...replies: ChatReply[]): void;
  /** Answers chat requests the queue does not: undefined keeps the default reply. */
  onChat(fn: ChatScript | null): void;
  /** Embedding requests only. */
  embedRequests(): FakeRequest[];
  /** Texts embedded so far (all requests). */
  embeddedTexts(): string[];
  reset(): void;
  stop(): void;
}

/** Models the fake knows, with their dimensions. "broken-embed" always answers 500. */
export const FAKE_MODELS: Record<string, number> = {
  "fake-embed": 64,
  "fake-embed-32": 32,
  "fake-embed-128": 128,
  "fake-embed-768": 768,
  "nomic-embed-text": 768,
  "fake-chat": 0,
  // A gateway model id: the gateway names models vendor/model.
  "anthropic/claude-haiku-4-5": 0,
  // OpenAI reasoning models: they refuse max_tokens and temperature (test/support/openai-reasoning-rules.ts).
  "gpt-5-mini": 0,
  "o4-mini": 0,
  "openai/gpt-5.1": 0,
};

const tokenVectors = new Map<string, Int8Array>();

/** A token's dense ±1 vector, seeded by its hash (random indexing). */
function tokenVector(token: string, dim: number): Int8Array {
  const key = `${dim}\u0000${token}`;
  let v = tokenVectors.get(key);
  if (!v) {
    v = new Int8Array(dim);
    let s = Number(Bun.hash.xxHash32(token)) || 1;
    for (let i = 0; i < dim; i++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      v[i] = s & 1 ? 1 : -1;
    }
    tokenVectors.set(key, v);
  }
  return v;
}

/**
 * The fake's embedding: random indexing (the sum of each word's dense ±1 vector), L2-normalised.
 * Dense like a real model's vectors, and texts sharing words are near.
 */
export function fakeEmbedding(text: string, dim: number): number[] {
  const v = new Float64Array(dim);
  const tokens = fakeTokens(text);
  for (const t of tokens) {
    const tv = tokenVector(t, dim);
    for (let i = 0; i < dim; i++) v[i]! += tv[i]!;
  }
  let n = 0;
  for (let i = 0; i < dim; i++) n += v[i]! * v[i]!;
  if (n === 0) {
    v[0] = 1;
    n = 1;
  }
  n = Math.sqrt(n);
  return Array.from(v, (x) => Math.round((x / n) * 1e6) / 1e6);
}

function parseBody(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return {};
  }
}

export function startFakeAiServer(knobs: Partial<FakeKnobs> = {}): FakeAiServer {
  const defaults: FakeKnobs = {
    failStatus: 0,
    failNext: 0,
    failAfter: 0,
    delayMs: 0,
    chatDelayMs: 0,
    maxBatch: 0,
    legacyOllama: false,
    garbageChat: false,
    ollamaRules: true,
    apiKey: null,
    synonyms: null,
  };
  const queue: ChatReply[] = [];
  let script: ChatScript | null = null;
  /** The scripted queue first, then the script function, then the default reply. */
  const nextReply = (chat: FakeChat): ChatReply => queue.shift() ?? script?.(chat) ?? {};
  const state: FakeAiServer = {
    url: "",
    openaiUrl: "",
    requests: [],
    received: [],
    knobs: { ...defaults, ...knobs },
    chats: [],
    scriptChat: (...replies) => void queue.push(...replies),
    onChat: (fn) => {
      script = fn;
    },
    embedRequests: () => state.requests.filter((r) => r.inputs > 0),
    embeddedTexts: () => state.requests.filter((r) => r.ok).flatMap((r) => r.texts),
    reset() {
      state.requests.length = 0;
      state.received.length = 0;
      state.chats.length = 0;
      queue.length = 0;
      script = null;
      state.knobs = { ...defaults };
    },
    stop: () => server.stop(true),
  };
  const json = (body: unknown, status = 200) => Response.json(body, { status });
  const ollamaMissing = (model: string) => json({ error: `model "${model}" not found, try pulling it first` }, 404);
  const openaiMissing = (model: string) =>
    json({ error: { message: `The model \`${model}\` does not exist`, type: "invalid_request_error", code: "model_not_found" } }, 404);

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const raw = await req.text();
      state.received.push(`${req.method} ${req.url}\n${[...req.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}\n\n${raw}`);
      const body = (req.method === "POST" ? parseBody(raw) : {}) as Record<string, any>;
      const model: string | null = typeof body.model === "string" ? body.model : null;
      const texts: string[] =
        path === "/api/embed" || path === "/v1/embeddings"
          ? (Array.isArray(body.input) ? body.input : [body.input]).map(String)
          : path === "/api/embeddings"
            ? [String(body.prompt ?? "")]
            : [];
      state.requests.push({ path, model, inputs: texts.length, texts });
      const k = state.knobs;
      if (k.delayMs) await Bun.sleep(k.delayMs);

      if (req.method === "GET") {
        if (path === "/api/version") return json({ version: k.legacyOllama ? "0.1.20" : "0.12.0" });
        if (path === "/api/tags") return json({ models: Object.keys(FAKE_MODELS).map((name) => ({ name, model: name, size: 1, digest: "0" })) });
        if (path === "/v1/models") return json({ object: "list", data: Object.keys(FAKE_MODELS).map((id) => ({ id, object: "model", owned_by: "fake" })) });
        return new Response("404 page not found", { status: 404, headers: { "content-type": "text/plain" } });
      }
      const isOpenAI = path.startsWith("/v1/");
      if (isOpenAI && k.apiKey && req.headers.get("authorization") !== `Bearer ${k.apiKey}`)
        return json({ error: { message: "Incorrect API key provided", type: "invalid_request_error" } }, 401);
      if (path === "/api/embed" && k.legacyOllama) return new Response("404 page not found", { status: 404, headers: { "content-type": "text/plain" } });
      if (k.failNext > 0) {
        k.failNext--;
        return json({ error: "temporarily unavailable" }, k.failStatus || 503);
      }
      if (k.failStatus) return json({ error: "the fake server was told to fail" }, k.failStatus);
      if (path === "/api/show") return model && model in FAKE_MODELS ? json({ details: { family: "fake" }, model_info: {} }) : ollamaMissing(String(model));

      if (texts.length > 0 || path === "/api/embed" || path === "/v1/embeddings" || path === "/api/embeddings") {
        if (!model || model === "broken-embed") return json({ error: "the model crashed" }, 500);
        if (!(model in FAKE_MODELS) || FAKE_MODELS[model] === 0) return isOpenAI ? openaiMissing(model) : ollamaMissing(model);
        if (k.maxBatch && texts.length > k.maxBatch)
          return isOpenAI
            ? json({ error: { message: `Too many inputs: at most ${k.maxBatch} per request`, type: "invalid_request_error" } }, 413)
            : json({ error: `batch too large: at most ${k.maxBatch} inputs` }, 400);
        if (k.failAfter && state.requests.filter((r) => r.inputs > 0 && r.ok).length >= k.failAfter)
          return json({ error: "the fake server was told to stop answering" }, 500);
        state.requests[state.requests.length - 1]!.ok = true;
        const dim = FAKE_MODELS[model]!;
        const synonyms = k.synonyms;
        const vectors = texts.map((t) => fakeEmbedding(synonyms ? t.replace(/[\p{L}\p{N}]+/gu, (w) => synonyms[w.toLowerCase()] ?? w) : t, dim));
        if (path === "/api/embeddings") return json({ embedding: vectors[0] });
        if (path === "/api/embed") return json({ model, embeddings: vectors, total_duration: 1, load_duration: 0, prompt_eval_count: texts.length });
        return json({
          object: "list",
          data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
          model,
          usage: { prompt_tokens: texts.length, total_tokens: texts.length },
        });
      }

      if (path === "/api/chat" || path === "/v1/chat/completions") {
        const chat = parseChat(isOpenAI ? "openai" : "ollama", body, req.headers.get("authorization"));
        state.chats.push(chat);
        const refused = isOpenAI ? refuseStrictSchema(body, model) : null;
        if (refused) return refused;
        const ollamaRefusal = isOpenAI || !k.ollamaRules ? null : ollamaChatRules(chat, body);
        if (ollamaRefusal) return ollamaRefusal;
        const reasoning = isOpenAI ? reasoningRefusal(model, body) : null;
        if (reasoning) return reasoning;
        if (k.chatDelayMs) await Bun.sleep(k.chatDelayMs);
        const reply = nextReply(chat);
        if (!reply.status && reply.rawBody === undefined && (!model || !(model in FAKE_MODELS)))
          return isOpenAI ? openaiMissing(String(model)) : ollamaMissing(String(model));
        const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
        return chatResponse(chat, { ...(k.garbageChat ? { content: "I cannot grade these, sorry." } : {}), ...reply }, req.signal, includeUsage);
      }
      return new Response("404 page not found", { status: 404, headers: { "content-type": "text/plain" } });
    },
  });
  state.url = `http://127.0.0.1:${server.port}`;
  state.openaiUrl = `${state.url}/v1`;
  return state;
}

/** Environment that points indx at the fake (provider ollama or openai). */
export function fakeEnv(fake: FakeAiServer, provider: "ollama" | "openai" = "ollama", model = "fake-embed"): Record<string, string> {
  return provider === "ollama"
    ? { INDX_EMBEDDINGS_PROVIDER: "ollama", INDX_EMBEDDINGS_MODEL: model, INDX_OLLAMA_URL: fake.url }
    : { INDX_EMBEDDINGS_PROVIDER: "openai", INDX_EMBEDDINGS_MODEL: model, INDX_OPENAI_BASE_URL: fake.openaiUrl, INDX_OPENAI_API_KEY: "sk-test-fake" };
}

/** Environment that gives indx a chat role on the fake; the gateway's key is FAKE_GATEWAY_KEY. */
export function fakeChatEnv(fake: FakeAiServer, provider: ProviderName = "ollama"): Record<string, string> {
  if (provider === "ollama") return { INDX_AI_PROVIDER: "ollama", INDX_AI_MODEL: "fake-chat", INDX_OLLAMA_URL: fake.url };
  if (provider === "openai")
    return { INDX_AI_PROVIDER: "openai", INDX_AI_MODEL: "fake-chat", INDX_OPENAI_BASE_URL: fake.openaiUrl, INDX_OPENAI_API_KEY: "sk-test-fake" };
  return {
    INDX_AI_PROVIDER: "vercel-ai-gateway",
    INDX_AI_MODEL: "anthropic/claude-haiku-4-5",
    INDX_AI_GATEWAY_URL: fake.openaiUrl,
    INDX_AI_GATEWAY_KEY: FAKE_GATEWAY_KEY,
  };
}

export const FAKE_GATEWAY_KEY = "vck_test_fake_gateway";

// `bun test/support/fake-ai-server.ts` runs it standalone (manual checks, benchmarks in another process).
if (import.meta.main) {
  const s = startFakeAiServer();
  console.log(s.url);
}
