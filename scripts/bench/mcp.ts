#!/usr/bin/env bun
/**
 * MCP latency on the generated 5,000-note vault with the same 20 queries as search.ts:
 * - tools/call vault_search over Streamable HTTP (SDK Client → `dist/indx serve --no-watch`):
 *   uncached (each call has a distinct input doing the same work, so the 60 s replay cache never
 *   answers; compare with search.http, the same queries over REST) and
 *   replayed (the same input again: what an agent's retry costs). Per query: 1 warm-up + N timed
 *   runs → per-query median → median and p90 over the queries.
 * - stdio: spawn `dist/indx mcp` + initialize (median of 15), and spawn → first vault_search
 *   result (which waits for the start-up index check).
 * Build the binary first (`bun run build`).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { BIN, emit, generatedVault, isolatedEnv, median, percentile, requireShared, round, startServe } from "./common.ts";

if (!requireShared("mcp")) process.exit(0);
if (!existsSync(BIN)) {
  emit({ bench: "mcp", skipped: "dist/indx missing: run bun run build" });
  process.exit(0);
}
const vaultDir = generatedVault(Number(process.env.BENCH_N ?? 5000), 42);
const queries = readFileSync(join(vaultDir, ".bench", "queries.txt"), "utf8")
  .split("\n")
  .filter(Boolean);
const env = isolatedEnv("mcp", vaultDir);
const RUNS = 20;

async function measure(label: string, once: (q: string, run: number) => Promise<unknown>) {
  const perQuery: number[] = [];
  for (const q of queries) {
    await once(q, -1);
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await once(q, i);
      times.push(performance.now() - t);
    }
    perQuery.push(median(times));
  }
  emit({ bench: label, queries: queries.length, runs: RUNS, median_ms: round(median(perQuery), 3), p90_ms: round(percentile(perQuery, 90), 3) });
}

function check(r: unknown) {
  if ((r as { isError?: boolean }).isError) throw new Error("tools/call failed");
}

// --- Streamable HTTP -------------------------------------------------------------------------
const { url, key, stop: stopServer } = await startServe(env);
const client = new Client({ name: "bench", version: "0" });
const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } });
await client.connect(transport);
await client.listTools();
// A distinct input per call with identical work, so nothing is replayed: a first-page cursor
// (offset 0) that also carries the run number. This leans on the cursor's current encoding
// (src/ops/schemas.ts); if that changes, the call fails with validation_failed and the bench stops.
const firstPage = (run: number) => Buffer.from(JSON.stringify({ o: 0, run })).toString("base64url");
await measure("mcp.http.vault_search", async (q, run) =>
  check(await client.callTool({ name: "vault_search", arguments: { q, limit: 10, cursor: firstPage(run) } })),
);
await measure("mcp.http.vault_search_replayed", async (q) => check(await client.callTool({ name: "vault_search", arguments: { q, limit: 10 } })));
await transport.terminateSession();
await client.close();
await stopServer();

// --- stdio ----------------------------------------------------------------------------------
const init: number[] = [];
const firstCall: number[] = [];
for (let i = 0; i < 16; i++) {
  const t = performance.now();
  const stdio = new StdioClientTransport({ command: BIN, args: ["mcp", "--no-watch"], env, stderr: "ignore" });
  const c = new Client({ name: "bench", version: "0" });
  await c.connect(stdio);
  const initialized = performance.now() - t;
  check(await c.callTool({ name: "vault_search", arguments: { q: queries[i % queries.length]!, limit: 10 } }));
  const answered = performance.now() - t;
  await c.close();
  if (i === 0) continue; // the first spawn warms the page cache
  init.push(initialized);
  firstCall.push(answered);
}
emit({ bench: "mcp.stdio.spawn_initialize", runs: init.length, median_ms: round(median(init)), p90_ms: round(percentile(init, 90)) });
emit({ bench: "mcp.stdio.spawn_first_search", runs: firstCall.length, median_ms: round(median(firstCall)), p90_ms: round(percentile(firstCall, 90)) });
