/**
 * Waiting on a running server's subscribers without timed sleeps: `until` polls a condition,
 * bringing the server's watcher up to date first; `listenStream` opens an MCP 2026-07-28
 * subscriptions/listen stream (docs/mcp.md) and collects its SSE events as they come.
 */

/** A server whose watcher a test can bring up to date (src/http/serve.ts's RunningServer). */
interface Watched {
  watcher?: { flush(): Promise<void> } | null;
}

/**
 * Polls `check` until it holds or `ms` pass, indexing what the watcher has pending before each
 * look (a test's outside edit is then heard at once, not after the debounce). The test asserts on
 * what it saw, not on the time.
 */
export async function until(server: Watched | null, check: () => boolean, ms = 15_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    await server?.watcher?.flush();
    if (check()) return true;
    await Bun.sleep(50);
  }
  return check();
}

export interface SseEvent {
  id?: string;
  /** A JSON-RPC message as the wire gave it: each test reads the fields it checks. */
  data: any;
}

export interface ListenStream {
  /** The events so far: SSE `data` parsed, with their `id`; a refused listen's one JSON-RPC error. */
  events: SseEvent[];
  close(): void;
  /** Settles when the stream ended (closed, or refused). */
  done: Promise<void>;
}

/**
 * POSTs one subscriptions/listen request to `url` with `headers` (authorization, the protocol
 * version, Last-Event-ID …) and collects what comes back. `onResponse` sees the response first
 * (its headers) before the body is read.
 */
export function listenStream(url: string, headers: Record<string, string>, body: unknown, onResponse?: (res: Response) => void): ListenStream {
  const stop = new AbortController();
  const events: SseEvent[] = [];
  const done = (async () => {
    const res = await fetch(url, {
      method: "POST",
      signal: stop.signal,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-method": "subscriptions/listen",
        ...headers,
      },
      body: JSON.stringify(body),
    });
    onResponse?.(res);
    const reader = res.body?.getReader();
    let raw = "";
    try {
      while (reader) {
        const { value, done } = await reader.read();
        if (done) break;
        raw += new TextDecoder().decode(value);
        for (let cut = raw.indexOf("\n\n"); cut >= 0; cut = raw.indexOf("\n\n")) {
          const block = raw.slice(0, cut);
          raw = raw.slice(cut + 2);
          const data = /^data: (.*)$/m.exec(block)?.[1];
          const id = /^id: (.*)$/m.exec(block)?.[1];
          if (data) events.push({ ...(id ? { id } : {}), data: JSON.parse(data) });
        }
      }
    } catch {}
    // A refused listen is answered with one JSON-RPC error, not a stream.
    if (raw.trimStart().startsWith("{")) events.push({ data: JSON.parse(raw) });
  })();
  return { events, close: () => stop.abort(), done };
}
