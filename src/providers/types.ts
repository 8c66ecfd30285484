/**
 * Provider interfaces. The core sees only these; "not configured" is null at the call sites
 * (see settings.ts), never a stub implementation.
 */
import { errnoOf } from "../core/errno.ts";
export type ProviderName = "ollama" | "openai" | "vercel-ai-gateway";
/** Embeddings have no gateway provider: the gateway serves the chat role only. */
export type EmbeddingsProviderName = Exclude<ProviderName, "vercel-ai-gateway">;

export interface EmbeddingProvider {
  readonly provider: EmbeddingsProviderName;
  readonly model: string;
  /**
   * One vector per input, in order. Throws ProviderError. `origin: "caller"`: the texts are what
   * the caller typed (a search query), not note text (the deny wall: src/providers/wall.ts).
   */
  embed(texts: string[], signal?: AbortSignal, origin?: "caller"): Promise<number[][]>;
}

export interface ChatMessage {
  role: "user" | "assistant";
  content: string;
}

export interface ChatRequest {
  system: string;
  messages: ChatMessage[];
  /** JSON Schema of the reply: structured output (Ollama `format`, OpenAI response_format json_schema). */
  jsonSchema?: Record<string, unknown>;
  /** false: the schema cannot meet strict structured outputs (src/ai/provider-schema.ts); ask without `strict`. Default true. */
  strictSchema?: boolean;
  maxOutputTokens?: number;
  /** Default: the configured ai.temperature (0). */
  temperature?: number;
  /** Default 0. */
  seed?: number;
  signal?: AbortSignal;
  /**
   * What the caller typed (a question, instructions, a query) as it appears in the prompt: the
   * caller's own words, which the deny wall's content check does not hold against it (src/providers/wall.ts).
   */
  callerText?: readonly string[];
  /** When given, the provider streams and calls this with each text delta as it arrives. */
  onDelta?: (text: string) => void;
}

export interface AiUsage {
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

export type FinishReason = "stop" | "length" | "content_filter" | "error";

export interface ChatResult {
  text: string;
  /** The parsed JSON when jsonSchema was given and the text is JSON; undefined otherwise. */
  structured?: unknown;
  /** Tokens as the provider counted them; the cost from the price table (src/providers/pricing.ts). */
  usage: AiUsage;
  finish_reason: FinishReason;
  /** False when onDelta was given but the reply came in one piece (the runtime warns stream_unsupported). */
  streamed: boolean;
  /** False when the reply carried no token counts: its cost is then the request's worst case (src/providers/meter.ts). */
  usageReported?: boolean;
}

export interface ChatProvider {
  readonly provider: ProviderName;
  readonly model: string;
  /** Throws ProviderError. */
  generate(req: ChatRequest): Promise<ChatResult>;
}

export type ProviderErrorKind =
  /** Connection refused, DNS, reset: the server is not there. */
  | "unreachable"
  | "timeout"
  /** The server does not know the model (Ollama's 404, OpenAI's model_not_found). */
  | "model_missing"
  /** 401/403: credentials. */
  | "auth"
  /** The request was too large (batch or input): retry smaller. */
  | "too_large"
  | "rate_limited"
  /** 5xx. */
  | "server"
  /** The reply did not have the expected shape (count, dimensions, numbers). */
  | "bad_response"
  /** The reply was larger, or its JSON nested deeper, than indx reads (src/providers/http.ts, src/providers/chat-result.ts). */
  | "reply_too_large"
  /** Another 4xx. */
  | "rejected"
  /** AI_TEST_REPLAY found no recorded exchange for the request. */
  | "replay_miss";

/** A provider failure. Its message never carries note text, queries or credentials. */
export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly status?: number,
    /** rate_limited: the provider's Retry-After, in seconds, when it sent one. */
    readonly retryAfterS?: number,
  ) {
    super(message);
    this.name = "ProviderError";
  }

  get retryable(): boolean {
    return this.kind === "unreachable" || this.kind === "timeout" || this.kind === "server" || this.kind === "rate_limited";
  }

  /**
   * The one rule that turns a provider failure into our error code (docs/contracts.md, "Errors"):
   * a provider that is not there, does not answer in time or lacks the model is unavailable
   * (503: the fix is on the operator's side); one that rate limits us is rate_limited (429, with
   * its Retry-After: the caller only has to wait); anything it answered wrongly is a provider error (502).
   */
  get code(): "ai_unavailable" | "ai_provider_error" | "rate_limited" {
    if (this.kind === "rate_limited") return "rate_limited";
    const unavailable = this.kind === "unreachable" || this.kind === "timeout" || this.kind === "model_missing" || this.kind === "replay_miss";
    return unavailable ? "ai_unavailable" : "ai_provider_error";
  }
}

/** Classifies whatever a client library threw into a ProviderError (messages stay generic). */
export function classifyError(err: unknown, what: string): ProviderError {
  if (err instanceof ProviderError) return err;
  const e = err as { name?: string; status?: number; status_code?: number; statusCode?: number; code?: string; message?: string; cause?: unknown };
  const status = e?.status_code ?? e?.statusCode ?? e?.status;
  const msg = String(e?.message ?? "");
  if (e?.name === "TimeoutError" || /timed? ?out/i.test(msg)) return new ProviderError("timeout", `${what}: the request timed out`);
  if (e?.name === "AbortError") return new ProviderError("timeout", `${what}: the request was cancelled`);
  if (typeof status === "number") {
    if (status === 404 && /model/i.test(msg)) return new ProviderError("model_missing", `${what}: the model is not available on the server (404)`, status);
    if (status === 404) return new ProviderError("rejected", `${what}: the endpoint does not exist (404)`, status);
    if (status === 401 || status === 403) return new ProviderError("auth", `${what}: the server refused the credentials (${status})`, status);
    if (status === 413) return new ProviderError("too_large", `${what}: the request was too large (413)`, status);
    if (status === 429) return new ProviderError("rate_limited", `${what}: rate limited (429)`, status);
    if (status >= 500) return new ProviderError("server", `${what}: the server failed (${status})`, status);
    if (/too (many|large|long)|batch|exceed/i.test(msg)) return new ProviderError("too_large", `${what}: the request was too large (${status})`, status);
    return new ProviderError("rejected", `${what}: the server refused the request (${status})`, status);
  }
  const code = errnoOf(err) ?? errnoOf(e?.cause);
  if (
    code === "ConnectionRefused" ||
    code === "ECONNREFUSED" ||
    code === "ECONNRESET" ||
    code === "FailedToOpenSocket" ||
    /connect|fetch failed|socket|Unable to connect/i.test(msg)
  )
    return new ProviderError("unreachable", `${what}: the server could not be reached`);
  return new ProviderError("bad_response", `${what}: unexpected failure`);
}

/** Checks a batch of vectors: count, one dimension for all, finite numbers. */
export function checkVectors(vectors: unknown, count: number, what: string): number[][] {
  if (!Array.isArray(vectors) || vectors.length !== count)
    throw new ProviderError("bad_response", `${what}: expected ${count} vectors, got ${Array.isArray(vectors) ? vectors.length : "none"}`);
  const dim = (vectors[0] as unknown[] | undefined)?.length ?? 0;
  for (const v of vectors as unknown[]) {
    if (!Array.isArray(v) || v.length !== dim || dim === 0 || !v.every((x) => typeof x === "number" && Number.isFinite(x)))
      throw new ProviderError("bad_response", `${what}: the vectors are malformed`);
  }
  return vectors as number[][];
}
