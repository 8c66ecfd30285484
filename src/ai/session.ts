import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { IndxError } from "../core/errors.ts";
import type { Warning } from "../ops/schemas.ts";
import type { AiSettings } from "./settings.ts";
import { type AiStreamSink, JsonFieldFollower } from "./stream.ts";
import { type AiUsage, type ChatMessage, type ChatProvider, ProviderError } from "./types.ts";

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
  /** A string field of the reply to stream as text while the model writes it (ai_ask's answer). */
  streamField?: string;
}

export const ZERO_USAGE: AiUsage = { input_tokens: 0, output_tokens: 0, cost_usd: 0 };

/**
 * The model, as one AI operation talks to it: every request gets the call's limits, seed and
 * cancellation; usage adds up across requests (map-reduce makes several); replies are JSON
 * checked against the schema asked for; and the warnings the model's behaviour causes
 * (truncated, stream_unsupported) are collected once. The daily cost cap is the provider's: each
 * request is held and settled at the boundary (src/ai/meter.ts).
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
    return this.parse(req.schema, reply.value, reply.truncated);
  }

  /**
   * json(), with the reply checked against a looser shape than the one the model is asked for:
   * for a caller that re-validates values one by one, so an enum near-miss drops that value with
   * a warning rather than failing the whole reply.
   */
  async jsonAccepting<S extends TSchema, A extends TSchema>(req: JsonRequest<S>, accept: A): Promise<Static<A>> {
    const reply = await this.request(req);
    return this.parse(accept, reply.value, reply.truncated);
  }

  private async request<S extends TSchema>(req: JsonRequest<S>): Promise<{ value: unknown; truncated: boolean }> {
    if (this.hooks.signal?.aborted) throw new IndxError("cancelled", "The call was cancelled.");
    const follower = req.streamField && this.hooks.stream ? new JsonFieldFollower(req.streamField) : null;
    const sink = this.hooks.stream;
    let result: Awaited<ReturnType<ChatProvider["generate"]>>;
    try {
      result = await this.chat.generate({
        system: req.system,
        messages: req.messages,
        jsonSchema: plainSchema(req.schema),
        maxOutputTokens: this.maxOutputTokens,
        temperature: this.settings.temperature,
        seed: this.knobs.seed ?? 0,
        signal: this.hooks.signal,
        ...(this.hooks.callerText?.length ? { callerText: this.hooks.callerText } : {}),
        ...(follower && sink
          ? {
              onDelta: (delta: string) => {
                const text = follower.push(delta);
                if (text) sink({ type: "ai.partial", delta: text });
              },
            }
          : {}),
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
    if (follower && !result.streamed) this.warnOnce("stream_unsupported", "The provider answered in one piece; nothing was streamed.");
    if (result.finish_reason === "length") this.warnOnce("truncated", `The reply hit the output limit of ${this.maxOutputTokens} tokens.`);
    return { value: result.structured ?? parseJson(result.text), truncated: result.finish_reason === "length" };
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

function parseJson(text: string): unknown {
  // Some models wrap JSON in a Markdown fence even in structured-output mode.
  const body = text.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, "$1");
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** A provider failure as our error, with the provider's status but never its body (it may echo the prompt). */
function providerFailure(err: unknown, chat: ChatProvider): IndxError {
  if (err instanceof IndxError) return err;
  const e = err instanceof ProviderError ? err : null;
  const code = e?.code ?? "ai_provider_error";
  return new IndxError(code, e?.message ?? "The chat model failed.", {
    provider: chat.provider,
    model: chat.model,
    ...(e?.status ? { upstream_status: e.status } : {}),
    upstream_message: e?.message ?? "unexpected failure",
    ...(code === "ai_unavailable" ? { required_role: "chat" } : {}),
  });
}

/** TypeBox schemas are JSON Schema plus symbol keys; providers get the plain JSON. */
const plainSchema = (schema: TSchema) => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;
