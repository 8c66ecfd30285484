import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { listenStream } from "./listen.ts";
import type { Sandbox } from "./vault.ts";

/** Writes the sandbox's config file with these `[vaults.<name>]` tables (path, data_dir), plus any top-level lines. */
export function writeVaultTables(sb: Sandbox, tables: Record<string, { path: string; data_dir?: string }>, top = ""): string {
  const path = loadConfig({ env: sb.env }).path;
  mkdirSync(dirname(path), { recursive: true });
  const body = Object.entries(tables)
    .map(([name, t]) => `[vaults.${name}]\npath = ${JSON.stringify(t.path)}\n${t.data_dir ? `data_dir = ${JSON.stringify(t.data_dir)}\n` : ""}`)
    .join("\n");
  writeFileSync(path, `${top}${body}`);
  return path;
}

/** An event frame of /v1/…/events. */
export interface Frame {
  kind?: string;
  path?: string;
}

/** The frames of one REST event stream, read until stopped; `ready` settles once subscribed. */
export function listenSse(url: string, token: string): { seen: Frame[]; ready: Promise<Response>; ended: () => boolean; stop(): Promise<void> } {
  const controller = new AbortController();
  const seen: Frame[] = [];
  let ended = false;
  const ready = fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
  const pump = (async () => {
    const res = await ready;
    if (res.status !== 200) throw new Error(`event stream ${url}: ${res.status} ${await res.text()}`);
    const reader = res.body?.getReader();
    let buf = "";
    const decoder = new TextDecoder();
    try {
      while (reader) {
        const { value, done } = await reader.read();
        if (done) {
          ended = !controller.signal.aborted;
          break;
        }
        buf += decoder.decode(value);
        for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
          const data = /^data: (.*)$/m.exec(buf.slice(0, i))?.[1];
          if (data) seen.push(JSON.parse(data));
          buf = buf.slice(i + 2);
        }
      }
    } catch {}
  })();
  return {
    seen,
    ready,
    ended: () => ended,
    async stop() {
      controller.abort();
      await pump.catch(() => {});
    },
  };
}

const V26 = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": V26,
  "io.modelcontextprotocol/clientInfo": { name: "vaults-test", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** The resource URIs announced on an MCP subscriptions/listen stream at `url` (/mcp or /mcp/{name}). */
export function listenMcp(url: string, token: string, uris: string[]): { readonly updated: string[]; acknowledged: () => boolean; stop(): Promise<void> } {
  const stream = listenStream(
    url,
    { authorization: `Bearer ${token}`, "mcp-protocol-version": V26 },
    { jsonrpc: "2.0", id: "L", method: "subscriptions/listen", params: { _meta: META, notifications: { resourceSubscriptions: uris } } },
  );
  const messages = () => stream.events.map((e) => e.data as { method?: string; params?: { uri?: string } });
  return {
    get updated() {
      return messages().flatMap((m) => (m.method === "notifications/resources/updated" && m.params?.uri ? [m.params.uri] : []));
    },
    acknowledged: () => messages().some((m) => m.method === "notifications/subscriptions/acknowledged"),
    async stop() {
      stream.close();
      await stream.done.catch(() => {});
    },
  };
}
/** One MCP 2026 tools/call over HTTP; the structured result, or the error's text. */
export async function mcpCall(url: string, token: string, name: string, args: Record<string, unknown> = {}): Promise<{ status: number; body: string }> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
      "mcp-protocol-version": V26,
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { _meta: META, name, arguments: args } }),
  });
  return { status: res.status, body: await res.text() };
}
