/**
 * A fake Ollama + OpenAI-compatible server for tests and benchmarks (docs/decisions.md, Embeddings
 * and semantic search): the real provider code (the `ollama` client, the AI SDK) talks to it over
 * HTTP. Embeddings are deterministic, dense and similarity-preserving: random indexing over the
 * words (lowercased, crude stemming, stopwords dropped), L2-normalised, so texts sharing words are
 * near. Chat replies are JSON shaped by the requested schema; a rerank request ("Query: …" +
 * "[n] …" passages) is graded by word overlap. Every request is logged for assertions, and knobs
 * make it fail, slow down, refuse big batches or act like an Ollama older than /api/embed.
 */

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
  knobs: FakeKnobs;
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
};

const STOP = new Set(
  "a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with what which who how does do".split(
    " ",
  ),
);

export function fakeTokens(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((w) => w.length > 1 && !STOP.has(w))
    .map((w) => (w.length > 4 && w.endsWith("s") ? w.slice(0, -1) : w));
}

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

function overlap(a: string, b: string): number {
  const qa = new Set(fakeTokens(a));
  if (qa.size === 0) return 0;
  const tb = new Set(fakeTokens(b));
  let n = 0;
  for (const t of qa) if (tb.has(t)) n++;
  return n / qa.size;
}

/** Grades "[n] …" passages against the "Query: …" line by word overlap (0–10). */
function gradeRerank(prompt: string): { scores: { id: string; relevance: number }[] } {
  const query = /Query:\s*(.*)/.exec(prompt)?.[1] ?? "";
  const scores: { id: string; relevance: number }[] = [];
  const re = /^\[(\d+)\]\s*([\s\S]*?)(?=^\[\d+\]|$(?![\s\S]))/gm;
  for (let m = re.exec(prompt); m; m = re.exec(prompt)) scores.push({ id: m[1]!, relevance: Math.round(overlap(query, m[2]!) * 100) / 10 });
  return { scores };
}

/** A value shaped like a JSON schema (the first type of each property). */
function shaped(schema: Record<string, unknown> | undefined, prompt: string): unknown {
  if (!schema) return "ok";
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  if (props.scores) return gradeRerank(prompt);
  const fill = (s: Record<string, unknown>): unknown => {
    const t = Array.isArray(s.type) ? s.type[0] : s.type;
    if (t === "object")
      return Object.fromEntries(Object.entries((s.properties ?? {}) as Record<string, Record<string, unknown>>).map(([k, v]) => [k, fill(v)]));
    if (t === "array") return [];
    if (t === "number" || t === "integer") return 0;
    if (t === "boolean") return false;
    return "ok";
  };
  return fill(schema);
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
    apiKey: null,
    synonyms: null,
  };
  const state: FakeAiServer = {
    url: "",
    openaiUrl: "",
    requests: [],
    knobs: { ...defaults, ...knobs },
    embedRequests: () => state.requests.filter((r) => r.inputs > 0),
    embeddedTexts: () => state.requests.filter((r) => r.ok).flatMap((r) => r.texts),
    reset() {
      state.requests.length = 0;
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
      const body = (req.method === "POST" ? await req.json().catch(() => ({})) : {}) as Record<string, any>;
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
        if (k.chatDelayMs) await Bun.sleep(k.chatDelayMs);
        if (!model || !(model in FAKE_MODELS)) return isOpenAI ? openaiMissing(String(model)) : ollamaMissing(String(model));
        const messages = (body.messages ?? []) as { role: string; content: unknown }[];
        const prompt = messages
          .filter((m) => m.role === "user")
          .map((m) => (typeof m.content === "string" ? m.content : Array.isArray(m.content) ? m.content.map((p: any) => p.text ?? "").join("") : ""))
          .join("\n");
        const schema = isOpenAI ? body.response_format?.json_schema?.schema : typeof body.format === "object" ? body.format : undefined;
        const content = k.garbageChat ? "I cannot grade these, sorry." : JSON.stringify(shaped(schema, prompt));
        const stream = body.stream === true;
        if (path === "/api/chat") {
          const done = {
            model,
            created_at: new Date().toISOString(),
            message: { role: "assistant", content: stream ? "" : content },
            done: true,
            done_reason: "stop",
          };
          if (!stream) return json(done);
          const lines = [JSON.stringify({ model, message: { role: "assistant", content }, done: false }), JSON.stringify(done)];
          return new Response(`${lines.join("\n")}\n`, { headers: { "content-type": "application/x-ndjson" } });
        }
        const base = { id: "chatcmpl-fake", created: Math.floor(Date.now() / 1000), model };
        if (!stream)
          return json({
            ...base,
            object: "chat.completion",
            choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          });
        const events = [
          { ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta: { role: "assistant", content }, finish_reason: null }] },
          { ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
        ];
        return new Response(`${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("")}data: [DONE]\n\n`, {
          headers: { "content-type": "text/event-stream" },
        });
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

// `bun test/support/fake-ai-server.ts` runs it standalone (manual checks, benchmarks in another process).
if (import.meta.main) {
  const s = startFakeAiServer();
  console.log(s.url);
}
