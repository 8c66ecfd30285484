#!/usr/bin/env bun
/**
 * The two MCP eras side by side on the generated vault (BENCH_N notes, default 5,000), over
 * Streamable HTTP on one `dist/indx serve --no-watch` (docs/mcp.md, MCP 2026-07-28):
 * - tools/call vault_search in a 2025-11-25 session (initialize once, then Mcp-Session-Id) and as
 *   a stateless 2026-07-28 request (its `_meta` and headers on every call): raw JSON-RPC POSTs,
 *   the same inputs, each distinct so nothing is replayed. Per query: 1 warm-up + N runs →
 *   per-query median → median and p90 over the queries, and the ratio 2026 / 2025. The two run
 *   alternately (A B A B) so the machine's load falls on both alike.
 * - server/discover: the first answer after start (instructions computed: counts the notes) and
 *   the median of the next N (kept until the index changes); then a 2025 initialize, which
 *   computes the same instructions.
 * Build the binary first (`bun run build`).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, emit, generatedVault, isolatedEnv, median, percentile, requireShared, round, startServe } from "./common.ts";

if (!requireShared("mcp-eras")) process.exit(0);
if (!existsSync(BIN)) {
  emit({ bench: "mcp-eras", skipped: "dist/indx missing: run bun run build" });
  process.exit(0);
}
const vaultDir = generatedVault(Number(process.env.BENCH_N ?? 5000), 42);
const queries = readFileSync(join(vaultDir, ".bench", "queries.txt"), "utf8")
  .split("\n")
  .filter(Boolean);
const RUNS = 20;
const V26 = "2026-07-28";
const { url, key, stop } = await startServe(isolatedEnv("mcp-eras", vaultDir));
const endpoint = `${url}/mcp`;
const base = { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${key}` };
const meta = { "io.modelcontextprotocol/protocolVersion": V26, "io.modelcontextprotocol/clientCapabilities": {} };
let id = 0;

async function post(body: Record<string, unknown>, headers: Record<string, string>): Promise<Response> {
  const res = await fetch(endpoint, { method: "POST", headers: { ...base, ...headers }, body: JSON.stringify({ jsonrpc: "2.0", id: ++id, ...body }) });
  const text = await res.text();
  if (!res.ok || text.includes('"error"') || text.includes('"isError":true')) throw new Error(`request failed: ${res.status} ${text.slice(0, 200)}`);
  return res;
}

// A distinct first-page cursor per call, identical work (as in mcp.ts): nothing is replayed.
const firstPage = (run: number) => Buffer.from(JSON.stringify({ o: 0, run, era: id })).toString("base64url");
const search = (q: string, run: number) => ({ method: "tools/call", params: { name: "vault_search", arguments: { q, limit: 10, cursor: firstPage(run) } } });

/** Both eras per query and run, alternating (A B A B), so load on the machine falls on both alike. */
async function measurePair(labels: [string, string], once: [(q: string, run: number) => Promise<unknown>, (q: string, run: number) => Promise<unknown>]) {
  const perQuery: [number[], number[]] = [[], []];
  for (const q of queries) {
    for (const f of once) await f(q, -1);
    const times: [number[], number[]] = [[], []];
    for (let i = 0; i < RUNS; i++)
      for (const k of [0, 1] as const) {
        const t = performance.now();
        await once[k](q, i);
        times[k].push(performance.now() - t);
      }
    for (const k of [0, 1] as const) perQuery[k].push(median(times[k]));
  }
  const medians = perQuery.map((xs, k) => {
    const m = median(xs);
    emit({ bench: labels[k], queries: queries.length, runs: RUNS, median_ms: round(m, 3), p90_ms: round(percentile(xs, 90), 3) });
    return m;
  });
  return medians as [number, number];
}

try {
  const discover = () => post({ method: "server/discover", params: { _meta: meta } }, { "mcp-protocol-version": V26, "mcp-method": "server/discover" });
  let t = performance.now();
  await discover();
  const first = performance.now() - t;
  const again: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    t = performance.now();
    await discover();
    again.push(performance.now() - t);
  }
  emit({ bench: "mcp.2026.discover", notes: Number(process.env.BENCH_N ?? 5000), first_ms: round(first, 3), cached_median_ms: round(median(again), 3) });

  t = performance.now();
  const init = await post(
    { method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "0" } } },
    { "mcp-protocol-version": "2025-11-25" },
  );
  emit({ bench: "mcp.2025.initialize", ms: round(performance.now() - t, 3) });
  const session = init.headers.get("mcp-session-id") ?? "";
  await fetch(endpoint, {
    method: "POST",
    headers: { ...base, "mcp-session-id": session },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  const [legacy, modern] = await measurePair(
    ["mcp.2025.session.vault_search", "mcp.2026.stateless.vault_search"],
    [
      (q, run) => post(search(q, run), { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }),
      (q, run) => {
        const body = search(q, run);
        return post(
          { ...body, params: { ...body.params, _meta: meta } },
          { "mcp-protocol-version": V26, "mcp-method": "tools/call", "mcp-name": "vault_search" },
        );
      },
    ],
  );
  emit({ bench: "mcp.eras.ratio", stateless_over_session: round(modern / legacy, 3) });
} finally {
  await stop();
}
