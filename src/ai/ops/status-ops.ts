import { type Static, Type } from "@sinclair/typebox";
import type { EmbeddingService } from "../../embeddings/service.ts";
import { type AiRole, defineOp } from "../../ops/define.ts";
import { Nullable, Warning } from "../../ops/schemas.ts";
import { describePrice, type ModelPrice } from "../../providers/pricing.ts";
import type { AiSettings } from "../../providers/settings.ts";
import type { SpendLedger } from "../../providers/spend.ts";
import type { AiCache } from "../cache.ts";
import type { AiService } from "../service.ts";
import { AI_OPERATIONS } from "./catalogue.ts";

/**
 * What ai_status and the AI part of vault_status read: the AI runtime's settings, cache and
 * spend, and nothing else, so a test can hand them a fake runtime (test/unit/ai-status-op.test.ts).
 */
export interface AiStatusDeps {
  ai: Pick<AiService, "offers" | "settings"> & { cache: Pick<AiCache, "stats">; spend: Pick<SpendLedger, "today" | "requestsToday"> };
  embeddings: Pick<EmbeddingService, "settings" | "vectors">;
}

const Price = Type.Object(
  {
    input_per_mtok: Nullable(Type.Number({ description: "USD per million input tokens; null: unknown." })),
    output_per_mtok: Nullable(Type.Number({ description: "USD per million output tokens; null: unknown." })),
    source: Type.Union([Type.Literal("free"), Type.Literal("config"), Type.Literal("builtin"), Type.Literal("unknown")], {
      description: "free: Ollama; config: ai.prices; builtin: the built-in table (read_on says when it was read); unknown: refused under a cap.",
    }),
    read_on: Type.Optional(Type.String({ description: "The day the built-in price was read (YYYY-MM-DD)." })),
  },
  { description: "The model's price, which the daily cost cap holds requests at." },
);

const Role = Nullable(Type.Object({ provider: Type.String(), model: Type.String(), price: Price }));
const EmbeddingsRole = Nullable(
  Type.Object({
    provider: Type.String(),
    model: Type.String(),
    price: Price,
    dimension: Nullable(
      Type.Integer({ description: "Dimension of the vectors stored for this model; null before any are (vault_status probes the provider)." }),
    ),
  }),
);

const Output = Type.Object({
  enabled: Type.Boolean({ description: "false: ai.enabled is off or no model is configured; no AI tool is offered." }),
  chat: Role,
  embeddings: EmbeddingsRole,
  operations: Type.Array(Type.String(), { description: "The AI operations this vault can run now." }),
  limits: Type.Object({
    max_input_tokens: Type.Integer(),
    max_output_tokens: Type.Integer(),
    temperature: Type.Number(),
    daily_cost_usd: Nullable(Type.Number()),
  }),
  cache: Type.Object({ enabled: Type.Boolean(), entries: Type.Integer(), hits_24h: Type.Integer(), size_bytes: Type.Integer() }),
  spend_today_usd: Type.Number({ description: "Spent since 00:00 UTC (with what requests in flight hold), across every process of this vault." }),
  warnings: Type.Array(Warning),
  message: Type.Optional(Type.String({ description: "Why AI is off, and the fix." })),
});

/** The AI part of vault_status: on or off, the chat model, and today's use (docs/contracts.md, AI runtime). */
export const AiSummary = Type.Object({
  enabled: Type.Boolean(),
  chat: Nullable(Type.String({ description: "provider/model" })),
  requests_today: Type.Integer({ description: "Model requests since 00:00 UTC (cache hits make none)." }),
  cache_hits_24h: Type.Integer(),
  spend_today_usd: Type.Number(),
});

export function aiSummary(ctx: AiStatusDeps): Static<typeof AiSummary> {
  const none = { enabled: false, chat: null, requests_today: 0, cache_hits_24h: 0, spend_today_usd: 0 };
  if (!ctx.ai.offers("any")) return none;
  const s = ctx.ai.settings();
  return {
    enabled: true,
    chat: s.chat ? `${s.chat.provider}/${s.chat.model}` : null,
    requests_today: ctx.ai.spend.requestsToday(),
    cache_hits_24h: ctx.ai.cache.stats().hits_24h,
    spend_today_usd: ctx.ai.spend.today(),
  };
}

/** Whether the configured roles serve an operation's needs (the degradation matrix of docs/contracts.md, AI runtime). */
function served(needs: AiRole, s: AiSettings): boolean {
  if (needs === "chat") return s.chat !== null;
  if (needs === "embeddings") return s.embeddings !== null;
  return s.chat !== null || s.embeddings !== null;
}

export const aiStatus = defineOp({
  name: "ai_status",
  errors: [],
  title: "AI status",
  description: "The vault's AI models, limits and spend.",
  scope: "vault:read",
  safe: true,
  ai: { needs: "any" },
  input: Type.Object({}, { additionalProperties: false }),
  output: Output,
  run(ctx: AiStatusDeps): Static<typeof Output> {
    let settings: AiSettings;
    try {
      settings = ctx.ai.settings();
    } catch (err) {
      return { ...off(), message: (err as Error).message };
    }
    const described = (r: { provider: string; model: string; price: ModelPrice }) => ({ provider: r.provider, model: r.model, price: describePrice(r.price) });
    const role = (r: { provider: string; model: string; price: ModelPrice } | null) => (r ? described(r) : null);
    const unpriced = [settings.chat, settings.embeddings].flatMap((r) => (r !== null && r.price.source === "unknown" ? [r] : []));
    const enabled = settings.enabled && (settings.chat !== null || settings.embeddings !== null);
    const cache = settings.cache.enabled && enabled ? ctx.ai.cache.stats() : { entries: 0, hits_24h: 0, size_bytes: 0 };
    return {
      enabled,
      chat: role(settings.chat),
      embeddings: settings.embeddings ? { ...described(settings.embeddings), dimension: storedDimension(ctx) } : null,
      operations: enabled ? ["ai_status", ...AI_OPERATIONS.filter((op) => op.ai !== undefined && served(op.ai.needs, settings)).map((op) => op.name)] : [],
      limits: {
        max_input_tokens: settings.maxInputTokens,
        max_output_tokens: settings.maxOutputTokens,
        temperature: settings.temperature,
        daily_cost_usd: settings.dailyCostUsd,
      },
      cache: { enabled: settings.cache.enabled, ...cache },
      spend_today_usd: enabled ? ctx.ai.spend.today() : 0,
      warnings: unpriced.map((r) => ({
        code: "ai_price_unknown" as const,
        message:
          settings.dailyCostUsd === null
            ? `${r.provider}/${r.model} has no known price: its calls are counted at $0. Name it in ai.prices.`
            : `${r.provider}/${r.model} has no known price: with ai.daily_cost_usd set, its requests are refused (ai_price_unknown) until ai.prices names it.`,
      })),
      ...(settings.enabled
        ? enabled
          ? {}
          : { message: "No model is configured: set INDX_AI_PROVIDER and INDX_AI_MODEL (chat) or INDX_EMBEDDINGS_PROVIDER and INDX_EMBEDDINGS_MODEL." }
        : { message: "The AI runtime is turned off (ai.enabled = false)." }),
    };
  },
  summary: (o) => (o.enabled ? `AI on: chat ${o.chat ? `${o.chat.provider}/${o.chat.model}` : "none"}; ${o.operations.length} operations` : "AI off"),
});

/** The dimension of the stored vectors when they are the configured model's (no provider call: ai_status is cheap). */
function storedDimension(ctx: AiStatusDeps): number | null {
  try {
    const settings = ctx.embeddings.settings();
    const store = ctx.embeddings.vectors(false);
    const stored = store?.identity();
    return settings && store && stored && !store.mismatch(settings) ? stored.dim : null;
  } catch {
    return null;
  }
}

function off(): Static<typeof Output> {
  return {
    enabled: false,
    chat: null,
    embeddings: null,
    operations: [],
    limits: { max_input_tokens: 0, max_output_tokens: 0, temperature: 0, daily_cost_usd: null },
    cache: { enabled: false, entries: 0, hits_24h: 0, size_bytes: 0 },
    spend_today_usd: 0,
    warnings: [],
  };
}
