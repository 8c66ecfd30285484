import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { IndxError } from "../core/errors.ts";
import type { Warning } from "../ops/schemas.ts";
import type { AiSettings } from "../providers/settings.ts";
import { type AiUsage, type ChatMessage, type ChatProvider, ProviderError } from "../providers/types.ts";
import { providerSchema, settleReply } from "./provider-schema.ts";
import type { AiStreamSink } from "./stream.ts";

/** Per-call knobs a caller may set; each is clamped by the settings. */
export interface CallKnobs {
  max_tokens?: number;
  seed?: number;
}

export interface JsonRequest<S extends TSchema> {
  system: string;
  messages: ChatMessage[];
  /** The reply's shape: sent as the structured-output schema and checked on the way back. */
  schema: S;
  /**
   * Reads the reply as it streams, when the caller streams: the operation streams what it has
   * verified of it (src/ai/segment-stream.ts), never the model's raw text.
   */
  follow?: (delta: string) => void;
}

export const ZERO_USAGE: AiUsage = { input_tokens: 0, output_tokens: 0, cost_usd: 0 };

/**
 * The model, as one AI operation talks to it: every request gets the call's limits, seed and
 * cancellation; usage adds up across requests (map-reduce makes several); replies are JSON
 * checked against the schema asked for; and the warnings the model's behaviour causes
 * (truncated, stream_unsupported) are collected once. The daily cost cap is the provider's: each
 * request is held and settled at the boundary (src/providers/meter.ts).
 */
export class ModelSession {
  readonly usage: AiUsage = { ...ZERO_USAGE };
  readonly warnings: Warning[] = [];
  requests = 0;

  constructor(
    readonly chat: ChatProvider,
    private readonly settings: AiSettings,
    private readonly knobs: CallKnobs,
    private readonly hooks: {
      signal?: AbortSignal;
      stream?: AiStreamSink;
      /** The caller's own texts (the input's strings): the deny wall does not hold them against it. */
      callerText?: readonly string[];
    },
  ) {}

  /** Output tokens for one request: the caller's max_tokens, never above the configured maximum. */
  get maxOutputTokens(): number {
    return Math.min(this.knobs.max_tokens ?? this.settings.maxOutputTokens, this.settings.maxOutputTokens);
  }

  async json<S extends TSchema>(req: JsonRequest<S>): Promise<Static<S>> {
    const reply = await this.request(req);
    return this.parse(req.schema, settled(req.schema, reply.value), reply.truncated);
  }

  /**
   * json(), with the reply checked against a looser shape than the one the model is asked for:
   * for a caller that re-validates values one by one, so an enum near-miss drops that value with
   * a warning rather than failing the whole reply.
   */
  async jsonAccepting<S extends TSchema, A extends TSchema>(req: JsonRequest<S>, accept: A): Promise<Static<A>> {
    const reply = await this.request(req);
    return this.parse(accept, settled(req.schema, reply.value), reply.truncated);
  }

  private async request<S extends TSchema>(req: JsonRequest<S>): Promise<{ value: unknown; truncated: boolean }> {
    if (this.hooks.signal?.aborted) throw new IndxError("cancelled", "The call was cancelled.");
    const follow = this.hooks.stream ? req.follow : undefined;
    const sink = this.hooks.stream;
    let result: Awaited<ReturnType<ChatProvider["generate"]>>;
    const sent = providerSchema(req.schema);
    try {
      result = await this.chat.generate({
        system: req.system,
        messages: req.messages,
        jsonSchema: sent.schema,
        ...(sent.strict ? {} : { strictSchema: false }),
        maxOutputTokens: this.maxOutputTokens,
        temperature: this.settings.temperature,
        seed: this.knobs.seed ?? 0,
        signal: this.hooks.signal,
        ...(this.hooks.callerText?.length ? { callerText: this.hooks.callerText } : {}),
        ...(follow ? { onDelta: follow } : {}),
      });
    } catch (err) {
      if (this.hooks.signal?.aborted) throw new IndxError("cancelled", "The call was cancelled.");
      throw providerFailure(err, this.chat);
    }
    this.requests++;
    this.usage.input_tokens += result.usage.input_tokens;
    this.usage.output_tokens += result.usage.output_tokens;
    this.usage.cost_usd = round6(this.usage.cost_usd + result.usage.cost_usd);
    sink?.({ type: "ai.usage", usage: { ...this.usage } });
    if (follow && !result.streamed) this.warnOnce("stream_unsupported", "The provider answered in one piece; nothing was streamed.");
    if (result.finish_reason === "length") this.warnOnce("truncated", `The reply hit the output limit of ${this.maxOutputTokens} tokens.`);
    return { value: result.structured, truncated: result.finish_reason === "length" };
  }

  private warnOnce(code: Warning["code"], message: string): void {
    if (!this.warnings.some((w) => w.code === code)) this.warnings.push({ code, message });
  }

  private parse<S extends TSchema>(schema: S, value: unknown, truncated: boolean): Static<S> {
    if (value !== undefined) {
      const cleaned = Value.Default(schema, Value.Clean(schema, structuredClone(value)));
      if (Value.Check(schema, cleaned)) return cleaned;
    }
    const why = truncated
      ? "The model's reply was cut off at the output limit before it was complete; raise max_tokens."
      : value === undefined
        ? "The model's reply was not JSON."
        : "The model's reply did not have the requested shape.";
    throw new IndxError("ai_provider_error", why, { provider: this.chat.provider, model: this.chat.model, upstream_message: why });
  }
}

/** A provider failure as our error, with the provider's status but never its body (it may echo the prompt). */
function providerFailure(err: unknown, chat: ChatProvider): IndxError {
  if (err instanceof IndxError) return err;
  const e = err instanceof ProviderError ? err : null;
  const code = e?.code ?? "ai_provider_error";
  const message =
    code === "rate_limited" ? `The chat provider is rate limiting requests${e?.retryAfterS ? `; retry after ${e.retryAfterS} s` : ""}.` : undefined;
  return new IndxError(code, message ?? e?.message ?? "The chat model failed.", {
    provider: chat.provider,
    model: chat.model,
    ...(e?.status ? { upstream_status: e.status } : {}),
    ...(e?.retryAfterS ? { retry_after_s: e.retryAfterS } : {}),
    upstream_message: e?.message ?? "unexpected failure",
    ...(code === "ai_unavailable" ? { required_role: "chat" } : {}),
  });
}

/** The reply read through the schema that was sent (docs/decisions.md, "Provider-exact reply schemas"). */
const settled = (schema: TSchema, value: unknown) => (value === undefined ? undefined : settleReply(schema, value));

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;
