#!/usr/bin/env bun
/**
 * Search latency on the generated 5,000-note vault with its 20 fixed queries: in process, over
 * HTTP (dist/indx serve, keep-alive fetch) and as a CLI subprocess (dist/indx search); plus the
 * cold start of `dist/indx --help`. Per query: 1 warm-up + N timed runs → per-query median →
 * median and p90 over the queries. Build the binary first (`bun run build`).
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { invoke } from "../../src/ops/invoke.ts";
import { vaultSearch } from "../../src/search/ops.ts";
import { Vault } from "../../src/vault/vault.ts";
import { BIN, emit, generatedVault, isolatedEnv, median, percentile, requireShared, round, startServe } from "./common.ts";

if (!requireShared("search")) process.exit(0);
const vaultDir = generatedVault(Number(process.env.BENCH_N ?? 5000), 42);
const queries = readFileSync(join(vaultDir, ".bench", "queries.txt"), "utf8")
  .split("\n")
  .filter(Boolean);
const env = isolatedEnv("search", vaultDir);
rmSync(env.INDX_DATA_DIR!, { recursive: true, force: true });
const ctx = new App(Vault.open(loadConfig({ env })));
await ctx.updateIndex({ build: true });

async function measure(label: string, runs: number, once: (q: string) => Promise<unknown> | unknown) {
  const perQuery: number[] = [];
  for (const q of queries) {
    await once(q);
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      await once(q);
      times.push(performance.now() - t);
    }
    perQuery.push(median(times));
  }
  emit({ bench: label, queries: queries.length, median_ms: round(median(perQuery), 3), p90_ms: round(percentile(perQuery, 90), 3) });
}

await measure("search.in_process", 20, (q) => invoke(vaultSearch, ctx, { q, limit: 10 }));
ctx.close();

if (!existsSync(BIN)) {
  emit({ bench: "search.http", skipped: "dist/indx missing: run bun run build" });
  process.exit(0);
}

const { url, key, stop: stopServer } = await startServe(env);
const headers = { authorization: `Bearer ${key}` };
await measure("search.http", 20, async (q) => {
  const r = await fetch(`${url}/v1/search?q=${encodeURIComponent(q)}&limit=10`, { headers });
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
});
await stopServer();

await measure("search.cli_subprocess", 5, (q) => {
  const p = Bun.spawnSync([BIN, "search", q, "--limit", "10", "--json"], { env, stdout: "pipe" });
  if (p.exitCode !== 0) throw new Error(`cli exit ${p.exitCode}`);
});

const cold: number[] = [];
for (let i = 0; i < 21; i++) {
  const t = performance.now();
  Bun.spawnSync([BIN, "--help"], { env, stdout: "ignore" });
  if (i > 0) cold.push(performance.now() - t);
}
emit({ bench: "cold_start.help", median_ms: round(median(cold)), p90_ms: round(percentile(cold, 90)) });
