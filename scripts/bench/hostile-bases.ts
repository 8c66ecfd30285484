#!/usr/bin/env bun
/**
 * Does /health keep answering while hostile Bases expressions run? Against dist/indx serve on the
 * generated vault (BENCH_N notes, default 20,000): each hostile query below is sent over REST and
 * over MCP (both on the reader pool) while a prober asks /health every 10 ms. Prints, per query,
 * its status, code and time, and the longest /health answer meanwhile (docs/decisions.md, "The
 * cost of a base"). Build the binary first (`bun run build`); run it against a build of an earlier
 * commit with BENCH_BIN=path to compare.
 */
import { existsSync, rmSync } from "node:fs";
import { basename } from "node:path";
import { BIN, emit, generatedVault, isolatedEnv, requireShared, round, startServe } from "./common.ts";

// BENCH_VAULT: a vault of your own instead of the generated one (which needs ../shared).
if (!process.env.BENCH_VAULT && !requireShared("bases.hostile")) process.exit(0);
if (!existsSync(BIN)) {
  emit({ bench: "bases.hostile", skipped: "dist/indx missing: run bun run build" });
  process.exit(0);
}

const n = Number(process.env.BENCH_N ?? 20000);
const env = isolatedEnv("hostile-bases", process.env.BENCH_VAULT ?? generatedVault(n, 42));
const vault = process.env.BENCH_VAULT ? basename(process.env.BENCH_VAULT) : `generated-${n}`;
rmSync(env.INDX_DATA_DIR!, { recursive: true, force: true });
const server = await startServe(env);
const headers = { authorization: `Bearer ${server.key}`, "content-type": "application/json", accept: "application/json, text/event-stream" };

const HOSTILE: Record<string, string> = {
  backtracking_regex: `filters: '/(a|a|b)+$/.matches(file.name + "${"a".repeat(24)}!")'`,
  split_empty: `filters: '(file.name + "${"x".repeat(2000)}").split("").length > 0'`,
  nested_map: `filters: '(file.name + "${" y".repeat(300)}").split(" ").map((file.name + "${" y".repeat(300)}").split(" ").length).length > 0'`,
};

/** Asks /health every 10 ms until stopped; returns the longest answer (ms). */
function probeHealth(): { stop(): Promise<number> } {
  let longest = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      await fetch(`${server.url}/health`);
      longest = Math.max(longest, performance.now() - t);
      await Bun.sleep(10);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return longest;
    },
  };
}

async function mcpSession(): Promise<string> {
  const r = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "0" } },
    }),
  });
  await r.text();
  return r.headers.get("mcp-session-id") ?? "";
}

/** How long one query is waited for. */
const QUERY_TIMEOUT_MS = Number(process.env.BENCH_QUERY_TIMEOUT_MS ?? 60_000);

const session = await mcpSession();
try {
  for (const [name, base] of Object.entries(HOSTILE)) {
    for (const surface of ["rest", "mcp"] as const) {
      const probe = probeHealth();
      const t = performance.now();
      let status = 0;
      let code: string | null = null;
      try {
        if (surface === "rest") {
          const r = await fetch(`${server.url}/v1/bases/query`, {
            method: "POST",
            headers,
            body: JSON.stringify({ base }),
            signal: AbortSignal.timeout(QUERY_TIMEOUT_MS),
          });
          status = r.status;
          code = ((await r.json()) as { error?: { code: string } }).error?.code ?? null;
        } else {
          const r = await fetch(`${server.url}/mcp`, {
            method: "POST",
            headers: { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "base_query", arguments: { base } } }),
            signal: AbortSignal.timeout(QUERY_TIMEOUT_MS),
          });
          status = r.status;
          code = /"code\\?":\\?"(\w+)/.exec(await r.text())?.[1] ?? null;
        }
      } catch {
        // A query still running after QUERY_TIMEOUT_MS (an engine without a cost limit).
        code = "gave_up_waiting";
      }
      const ms = performance.now() - t;
      emit({ bench: "bases.hostile", vault, query: name, surface, status, code, query_ms: round(ms, 0), health_max_ms: round(await probe.stop(), 1) });
    }
  }
} finally {
  await server.stop();
}
