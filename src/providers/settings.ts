import type { Config } from "../config/load.ts";
import { IndxError } from "../core/errors.ts";
import { ollamaInputBudget } from "./ollama-context.ts";
import { type ModelPrice, modelPrice, parsePrices } from "./pricing.ts";
import type { EmbeddingsProviderName, ProviderName } from "./types.ts";

/**
 * Provider configuration (docs/contracts.md, Configuration). Each role resolves to settings or to
 * `null` ("not configured"); every caller branches on null explicitly, and nothing is ever sent
 * anywhere unless a provider is configured.
 */
export interface Endpoint<P extends ProviderName = ProviderName> {
  provider: P;
  /** Ollama: the server URL; openai and the gateway: the base URL (…/v1). */
  baseUrl: string;
  /** Only for openai and the gateway; never logged or returned. */
  apiKey: string | null;
}

export interface EmbeddingsSettings extends Endpoint<EmbeddingsProviderName> {
  model: string;
  /** Per million input tokens (src/providers/pricing.ts): what the cost cap holds an embedding request at. */
  price: ModelPrice;
  batchSize: number;
  concurrency: number;
  timeoutMs: number;
}

export interface ChatSettings extends Endpoint {
  model: string;
  timeoutMs: number;
  /** The default of a request that names none. */
  temperature: number;
  /** A hard cap: a request may ask for fewer tokens, never more. */
  maxOutputTokens: number;
  price: ModelPrice;
  /** Ollama only: the largest num_ctx a call may ask for (ai.ollama_num_ctx_max; src/providers/ollama-context.ts). */
  numCtxMax: number;
  /** Tests only: record exchanges as fixtures, or answer from them (src/providers/record-replay.ts). */
  fixtures: { mode: "record" | "replay"; dir: string | null } | null;
}

export interface AiSettings {
  /** False when ai.enabled = false: every AI operation is hidden or unavailable, and search does not rerank. */
  enabled: boolean;
  /** Null: no chat role. */
  chat: ChatSettings | null;
  /** Null: no embeddings role. */
  embeddings: EmbeddingsSettings | null;
  maxInputTokens: number;
  maxOutputTokens: number;
  temperature: number;
  /** Empty: every note. */
  allowGlobs: string[];
  /** Wins over allowGlobs. */
  denyGlobs: string[];
  cache: { enabled: boolean; ttlSeconds: number };
  /** Null: no ceiling. */
  dailyCostUsd: number | null;
  timeoutMs: number;
}

/**
 * Whether an endpoint is on this machine (a loopback host): what an agent is told with MCP's
 * openWorldHint (docs/contracts.md, "Threat model"). A name other than localhost is not resolved: a
 * LAN host, a container name or a tunnel all count as elsewhere.
 */
export function onThisMachine(e: Endpoint): boolean {
  let host: string;
  try {
    host = new URL(e.baseUrl).hostname.toLowerCase();
  } catch {
    return false;
  }
  return host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const EMBEDDINGS_PROVIDERS: readonly EmbeddingsProviderName[] = ["ollama", "openai"];
const CHAT_PROVIDERS: readonly ProviderName[] = ["ollama", "openai", "vercel-ai-gateway"];

function parseProvider<P extends ProviderName>(raw: string, allowed: readonly P[], key: string, env: string): P {
  const p = raw.trim().toLowerCase();
  const name = p === "openai-compatible" ? "openai" : p;
  const found = allowed.find((a) => a === name);
  if (found) return found;
  throw new IndxError("validation_failed", `${key} must be one of ${allowed.join(", ")} (set with ${env}).`, { key, allowed: [...allowed] });
}

function endpoint<P extends ProviderName>(config: Config, provider: P, role: string): Endpoint<P> {
  if (provider === "ollama") return { provider, baseUrl: trimSlash(config.str("embeddings.ollama_url") ?? "http://127.0.0.1:11434"), apiKey: null };
  if (provider === "vercel-ai-gateway") {
    const apiKey = config.str("ai.gateway_key");
    if (!apiKey)
      throw new IndxError("validation_failed", `The ${role} provider is vercel-ai-gateway, which needs its key: set INDX_AI_GATEWAY_KEY.`, {
        key: "ai.gateway_key",
        fix: "set INDX_AI_GATEWAY_KEY",
      });
    return { provider, baseUrl: trimSlash(config.str("ai.gateway_url") ?? ""), apiKey };
  }
  const baseUrl = config.str("embeddings.openai_base_url");
  if (!baseUrl)
    throw new IndxError(
      "validation_failed",
      `The ${role} provider is openai, which needs a base URL: set INDX_OPENAI_BASE_URL (e.g. https://api.openai.com/v1 or a local server's /v1).`,
      { key: "embeddings.openai_base_url", fix: "set INDX_OPENAI_BASE_URL" },
    );
  return { provider, baseUrl: trimSlash(baseUrl), apiKey: config.str("embeddings.openai_api_key") };
}

/** Whether an embeddings provider is set, half configured or not (embeddingsSettings() tells which). */
export function embeddingsConfigured(config: Config): boolean {
  return config.str("embeddings.provider") !== null;
}

/** The embeddings role, or null when INDX_EMBEDDINGS_PROVIDER is unset. A half configuration is an error. */
export function embeddingsSettings(config: Config): EmbeddingsSettings | null {
  const raw = config.str("embeddings.provider");
  if (raw === null) return null;
  const provider = parseProvider(raw, EMBEDDINGS_PROVIDERS, "embeddings.provider", "INDX_EMBEDDINGS_PROVIDER");
  const model = config.str("embeddings.model");
  if (!model)
    throw new IndxError("validation_failed", "An embeddings provider is set but no model: set INDX_EMBEDDINGS_MODEL (e.g. nomic-embed-text for Ollama).", {
      key: "embeddings.model",
      fix: "set INDX_EMBEDDINGS_MODEL",
    });
  return {
    ...endpoint(config, provider, "embeddings"),
    model,
    price: modelPrice(provider, model, parsePrices(config.list("ai.prices"))),
    batchSize: clamp(config.int("embeddings.batch_size"), 1, 2048),
    concurrency: clamp(config.int("embeddings.concurrency"), 1, 16),
    timeoutMs: clamp(config.int("embeddings.timeout_ms"), 100, 600_000),
  };
}

/**
 * The chat role: INDX_AI_PROVIDER / INDX_AI_MODEL, the provider falling back to the embeddings
 * provider (docs/contracts.md, Configuration). Null when no chat model is named. It does not look
 * at ai.enabled: callers ask aiSettings or aiEnabled.
 */
export function chatSettings(config: Config): ChatSettings | null {
  const model = config.str("ai.model");
  if (!model) return null;
  const raw = config.str("ai.provider") ?? config.str("embeddings.provider");
  if (raw === null) return null;
  const provider = parseProvider(raw, CHAT_PROVIDERS, "ai.provider", "INDX_AI_PROVIDER");
  return {
    ...endpoint(config, provider, "chat"),
    model,
    timeoutMs: timeoutMs(config),
    temperature: temperature(config),
    maxOutputTokens: maxOutputTokens(config),
    price: modelPrice(provider, model, parsePrices(config.list("ai.prices"))),
    numCtxMax: numCtxMax(config),
    fixtures: fixtures(config),
  };
}

export const aiEnabled = (config: Config): boolean => config.get("ai.enabled") !== false;

/** Everything the AI runtime is configured with. Throws validation_failed on a half configuration. */
export function aiSettings(config: Config): AiSettings {
  const chat = chatSettings(config);
  const maxInput = clamp(config.int("ai.max_input_tokens"), 256, 10_000_000);
  return {
    enabled: aiEnabled(config),
    chat,
    embeddings: embeddingsSettings(config),
    // Ollama cuts a prompt longer than its context silently: operations budget to what fits.
    maxInputTokens: chat?.provider === "ollama" ? Math.min(maxInput, ollamaInputBudget(chat.numCtxMax, maxOutputTokens(config))) : maxInput,
    maxOutputTokens: maxOutputTokens(config),
    temperature: temperature(config),
    allowGlobs: config.list("ai.allow_globs"),
    denyGlobs: config.list("ai.deny_globs"),
    cache: { enabled: config.get("ai.cache.enabled") !== false, ttlSeconds: Math.round((config.num("ai.cache.ttl_hours") ?? 24) * 3600) },
    dailyCostUsd: config.num("ai.daily_cost_usd"),
    timeoutMs: timeoutMs(config),
  };
}

/** The degradation matrix: which AI roles are available (ai.enabled = false is "none"). */
export type AiRoles = "none" | "embeddings_only" | "chat_only" | "both";

export function aiRoles(s: AiSettings): AiRoles {
  if (!s.enabled) return "none";
  if (s.chat && s.embeddings) return "both";
  if (s.chat) return "chat_only";
  return s.embeddings ? "embeddings_only" : "none";
}

const timeoutMs = (config: Config) => clamp(config.int("ai.timeout_ms"), 100, 600_000);
const temperature = (config: Config) => Math.min(2, config.num("ai.temperature") ?? 0);
const numCtxMax = (config: Config) => clamp(config.int("ai.ollama_num_ctx_max"), 2048, 1_048_576);
const maxOutputTokens = (config: Config) => clamp(config.int("ai.max_output_tokens"), 16, 1_000_000);

function fixtures(config: Config): ChatSettings["fixtures"] {
  const record = config.get("ai.test_record") === true;
  const replay = config.get("ai.test_replay") === true;
  if (record && replay) throw new IndxError("validation_failed", "AI_TEST_RECORD and AI_TEST_REPLAY cannot both be set.", { key: "ai.test_replay" });
  if (!record && !replay) return null;
  return { mode: record ? "record" : "replay", dir: config.str("ai.fixtures_dir") };
}

/** The identity recorded beside the vectors: a different one is never mixed in (docs/contracts.md, Index lifecycle). */
export interface EmbeddingIdentity {
  provider: EmbeddingsProviderName;
  model: string;
  dim: number;
}

export const describeIdentity = (i: { provider: string; model: string; dim?: number | null }) =>
  `${i.provider}/${i.model}${i.dim ? ` (${i.dim} dimensions)` : ""}`;

const trimSlash = (s: string) => s.replace(/\/+$/, "");
const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Number.isFinite(n) ? n : lo));
