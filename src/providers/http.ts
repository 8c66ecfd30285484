import { ProviderError } from "./types.ts";

/**
 * The fetch every provider client uses: a per-call timeout joined with the caller's signal, and
 * error bodies that are not JSON rewritten as JSON (the ollama client otherwise prints a line to
 * stdout, which is the MCP protocol channel and the CLI's data channel).
 */
export function providerFetch(timeoutMs: number, signal?: AbortSignal): typeof fetch {
  const f = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const signals = [AbortSignal.timeout(timeoutMs)];
    if (signal) signals.push(signal);
    if (init?.signal) signals.push(init.signal);
    let res: Response;
    try {
      res = await fetch(input, { ...init, signal: AbortSignal.any(signals) });
    } catch (err) {
      if (signal?.aborted) throw new ProviderError("timeout", "the request was cancelled");
      if ((err as { name?: string }).name === "TimeoutError" || (err as { name?: string }).name === "AbortError")
        throw new ProviderError("timeout", `the request timed out after ${timeoutMs} ms`);
      throw new ProviderError("unreachable", "the server could not be reached");
    }
    if (!res.ok && !(res.headers.get("content-type") ?? "").includes("json")) {
      const text = (await res.text().catch(() => "")).slice(0, 200);
      return new Response(JSON.stringify({ error: text || `HTTP ${res.status}` }), {
        status: res.status,
        statusText: res.statusText,
        headers: { "content-type": "application/json" },
      });
    }
    return res;
  };
  return f as typeof fetch;
}
