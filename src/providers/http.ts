import { ProviderError } from "./types.ts";

/** How one provider call may use the connection (docs/decisions.md, "AI replies that cannot block the server"). */
export interface FetchLimits {
  /**
   * False (the default): `timeoutMs` is a deadline for the whole call, body included. True (a
   * stream): it bounds the wait for the headers and then each silence between two pieces, so a
   * long answer that keeps coming is not cut, and a stalled one is.
   */
  idle?: boolean;
  /** The most bytes the reply body may have; past it the call fails with reply_too_large and the rest is never read. */
  maxBytes?: number;
}

/**
 * The fetch every provider client uses: a timeout (a deadline, or an idle timeout for streams)
 * joined with the caller's signal, a bound on the reply's size, a 429 turned into rate_limited
 * with the provider's Retry-After, and error bodies that are not JSON rewritten as JSON (the
 * ollama client otherwise prints a line to stdout, which is the MCP protocol channel and the
 * CLI's data channel).
 */
export function providerFetch(timeoutMs: number, signal?: AbortSignal, limits: FetchLimits = {}): typeof fetch {
  const f = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const guard = new Guard(timeoutMs, limits);
    const signals = [guard.signal];
    if (signal) signals.push(signal);
    if (init?.signal) signals.push(init.signal);
    let res: Response;
    try {
      res = await fetch(input, { ...init, signal: AbortSignal.any(signals) });
    } catch (err) {
      guard.stop();
      if (signal?.aborted) throw new ProviderError("timeout", "the request was cancelled");
      if (guard.failure) throw guard.failure;
      if ((err as { name?: string }).name === "TimeoutError" || (err as { name?: string }).name === "AbortError")
        throw new ProviderError("timeout", `the request timed out after ${timeoutMs} ms`);
      throw new ProviderError("unreachable", "the server could not be reached");
    }
    if (res.status === 429) {
      guard.stop();
      await res.body?.cancel().catch(() => {});
      throw new ProviderError("rate_limited", "the provider is rate limiting requests (429)", 429, retryAfterSeconds(res.headers.get("retry-after")));
    }
    if (!res.ok && !(res.headers.get("content-type") ?? "").includes("json")) {
      const text = (
        await guard
          .body(res)
          .text()
          .catch(() => "")
      ).slice(0, 200);
      return new Response(JSON.stringify({ error: text || `HTTP ${res.status}` }), {
        status: res.status,
        statusText: res.statusText,
        headers: { "content-type": "application/json" },
      });
    }
    return new Response(guard.body(res), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return f as typeof fetch;
}

/** One call's timer and byte count; whatever fails first is the call's error. */
class Guard {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | null = null;
  failure: ProviderError | null = null;

  constructor(
    private readonly timeoutMs: number,
    private readonly limits: FetchLimits,
  ) {
    this.arm(`the request timed out after ${timeoutMs} ms`);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  private arm(message: string): void {
    this.clear();
    this.timer = setTimeout(() => this.fail(new ProviderError("timeout", message)), this.timeoutMs);
    // A timer must not keep a CLI process alive after its answer.
    this.timer.unref?.();
  }

  private clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  fail(err: ProviderError): void {
    this.failure ??= err;
    this.clear();
    this.controller.abort(this.failure);
  }

  stop(): void {
    this.clear();
  }

  /** The reply body, read through the limits: an idle timer re-armed before each read, the byte count checked after. */
  body(res: Response): ReadableStream<Uint8Array> {
    const reader = res.body?.getReader();
    let bytes = 0;
    const max = this.limits.maxBytes ?? Number.POSITIVE_INFINITY;
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (!reader) {
          this.stop();
          controller.close();
          return;
        }
        if (this.limits.idle) this.arm(`the stream was silent for ${this.timeoutMs} ms`);
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (err) {
          this.stop();
          controller.error(this.failure ?? err);
          return;
        }
        if (this.limits.idle) this.clear();
        if (this.failure) {
          controller.error(this.failure);
          return;
        }
        if (chunk.done) {
          this.stop();
          controller.close();
          return;
        }
        bytes += chunk.value.byteLength;
        if (bytes > max) {
          this.fail(new ProviderError("reply_too_large", `the reply exceeded ${max} bytes`));
          reader.cancel().catch(() => {});
          controller.error(this.failure);
          return;
        }
        controller.enqueue(chunk.value);
      },
      cancel: async (reason) => {
        this.stop();
        await reader?.cancel(reason).catch(() => {});
      },
    });
  }
}

/** Retry-After in seconds (delta-seconds or an HTTP date), at least 1; undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  const seconds = /^\d+$/.test(trimmed) ? Number(trimmed) : (Date.parse(trimmed) - Date.now()) / 1000;
  if (!Number.isFinite(seconds)) return undefined;
  return Math.min(86_400, Math.max(1, Math.ceil(seconds)));
}
