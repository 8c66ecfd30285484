import type { Config } from "../config/load.ts";
import { IndxError } from "../core/errors.ts";

/**
 * Provider configuration (docs/contracts.md, Configuration). Each role resolves to settings or to
 * `null` ("not configured"); every caller branches on null explicitly, and nothing is ever sent
 * anywhere unless a provider is configured.
 */
export type ProviderName = "ollama" | "openai";

export interface Endpoint {
  provider: ProviderName;
  /** Ollama: the server URL; openai: the base URL (…/v1). */
  baseUrl: string;
  /** Only for openai; never logged or returned. */
  apiKey: string | null;
}

export interface EmbeddingsSettings extends Endpoint {
  model: string;
  batchSize: number;
  concurrency: number;
  timeoutMs: number;
}

export interface ChatSettings extends Endpoint {
  model: string;
  timeoutMs: number;
}

const PROVIDERS: readonly ProviderName[] = ["ollama", "openai"];

function parseProvider(raw: string, key: string, env: string): ProviderName {
  const p = raw.trim().toLowerCase();
  if (p === "openai-compatible") return "openai";
  if ((PROVIDERS as readonly string[]).includes(p)) return p as ProviderName;
  throw new IndxError("validation_failed", `${key} must be one of ${PROVIDERS.join(", ")} (set with ${env}).`, {
    key,
    allowed: [...PROVIDERS],
  });
}

function endpoint(config: Config, provider: ProviderName, role: string): Endpoint {
  if (provider === "ollama") return { provider, baseUrl: trimSlash(config.str("embeddings.ollama_url") ?? "http://127.0.0.1:11434"), apiKey: null };
  const baseUrl = config.str("embeddings.openai_base_url");
  if (!baseUrl)
    throw new IndxError(
      "validation_failed",
      `The ${role} provider is openai, which needs a base URL: set INDX_OPENAI_BASE_URL (e.g. https://api.openai.com/v1 or a local server's /v1).`,
      { key: "embeddings.openai_base_url", fix: "set INDX_OPENAI_BASE_URL" },
    );
  return { provider, baseUrl: trimSlash(baseUrl), apiKey: config.str("embeddings.openai_api_key") };
}

/** The embeddings role, or null when INDX_EMBEDDINGS_PROVIDER is unset. A half configuration is an error. */
export function embeddingsSettings(config: Config): EmbeddingsSettings | null {
  const raw = config.str("embeddings.provider");
  if (raw === null) return null;
  const provider = parseProvider(raw, "embeddings.provider", "INDX_EMBEDDINGS_PROVIDER");
  const model = config.str("embeddings.model");
  if (!model)
    throw new IndxError("validation_failed", "An embeddings provider is set but no model: set INDX_EMBEDDINGS_MODEL (e.g. nomic-embed-text for Ollama).", {
      key: "embeddings.model",
      fix: "set INDX_EMBEDDINGS_MODEL",
    });
  return {
    ...endpoint(config, provider, "embeddings"),
    model,
    batchSize: clamp(config.int("embeddings.batch_size"), 1, 2048),
    concurrency: clamp(config.int("embeddings.concurrency"), 1, 16),
    timeoutMs: clamp(config.int("embeddings.timeout_ms"), 100, 600_000),
  };
}

/**
 * The chat role: INDX_AI_PROVIDER / INDX_AI_MODEL, the provider falling back to the embeddings
 * provider (docs/contracts.md, Configuration). Null when no chat model is named.
 */
export function chatSettings(config: Config): ChatSettings | null {
  const model = config.str("ai.model");
  if (!model) return null;
  const raw = config.str("ai.provider") ?? config.str("embeddings.provider");
  if (raw === null) return null;
  const provider = parseProvider(raw, "ai.provider", "INDX_AI_PROVIDER");
  return { ...endpoint(config, provider, "chat"), model, timeoutMs: clamp(config.int("ai.timeout_ms"), 100, 600_000) };
}

/** The identity recorded beside the vectors: a different one is never mixed in (docs/contracts.md, Index lifecycle). */
export interface EmbeddingIdentity {
  provider: ProviderName;
  model: string;
  dim: number;
}

export const describeIdentity = (i: { provider: string; model: string; dim?: number | null }) =>
  `${i.provider}/${i.model}${i.dim ? ` (${i.dim} dimensions)` : ""}`;

const trimSlash = (s: string) => s.replace(/\/+$/, "");
const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Number.isFinite(n) ? n : lo));
