#!/usr/bin/env bun
/**
 * How indx scales with the vault: for generated vaults of BENCH_SIZES notes (default 5,000,
 * 20,000, 50,000 and 100,000; corpus-gen seed 42, cached in .bench-out), the full build (in a
 * fresh process, so its peak RSS is the build's own), index.db over the Markdown's size, the
 * no-change re-index, and search latency (the vault's 20 queries: 1 warm-up + RUNS timed runs,
 * per-query median, then p50 / p90 / p95 / max over the queries) in process and over HTTP
 * (dist/indx serve; skipped when the binary is missing). Latency is measured twice: first in a
 * fresh process, then once STEADY_ROUNDS more rounds of every query have run. The first figures
 * carry the JavaScript engine's warm-up (its optimising compilers take over a function after
 * some hundreds of calls); the steady ones are what a server answers once it has been up for a
 * while. One JSON line per size, then the table.
 * BENCH_ROWS_WORKER=0 or 1 turns the build's rows worker off or on (default: the indexer decides).
 */
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { runIndex, updateIndex } from "../../src/index/build/indexer.ts";
import { indexIdentity } from "../../src/index/storage/connection.ts";
import { IndexStore } from "../../src/index/storage/store.ts";
import { invoke } from "../../src/ops/invoke.ts";
import { vaultSearch } from "../../src/search/ops.ts";
import { Vault } from "../../src/vault/vault.ts";
import { BIN, emit, generatedVault, isolatedEnv, median, percentile, requireShared, round, startServe } from "./common.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const STEADY_ROUNDS = 20;

if (process.argv[2] === "--build-child") {
  const vault = Vault.open(loadConfig({ env: process.env as Record<string, string> }));
  const t = performance.now();
  const knob = process.env.BENCH_ROWS_WORKER;
  const report = runIndex(vault, { rowsWorker: knob ? knob === "1" : undefined });
  console.log(JSON.stringify({ ms: performance.now() - t, notes: report.added, rss_mib: process.resourceUsage().maxRSS / 1024 }));
  process.exit(0);
}

if (!requireShared("scale")) process.exit(0);
const sizes = (process.env.BENCH_SIZES ?? "5000,20000,50000,100000").split(",").map(Number);
const rows: Record<string, number | string>[] = [];

for (const n of sizes) {
  const vaultDir = generatedVault(n, 42);
  const queries = readFileSync(join(vaultDir, ".bench", "queries.txt"), "utf8")
    .split("\n")
    .filter(Boolean);
  const env = isolatedEnv(`scale-${n}`, vaultDir);
  rmSync(env.INDX_DATA_DIR!, { recursive: true, force: true });

  const child = Bun.spawnSync(["bun", import.meta.path, "--build-child"], { env, stdout: "pipe", stderr: "inherit" });
  if (child.exitCode !== 0) throw new Error(`the build of ${n} notes failed`);
  const build = JSON.parse(child.stdout.toString()) as { ms: number; notes: number; rss_mib: number };

  const vault = Vault.open(loadConfig({ env }));
  const indexBytes = ["", "-wal"].reduce((sum, suffix) => sum + fileSize(vault.indexPath + suffix), 0);
  const store = IndexStore.openExisting(vault.indexPath, indexIdentity(vault));
  const noChange: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    updateIndex(vault, store);
    noChange.push(performance.now() - t);
  }
  store.close();

  const ctx = new App(vault);
  const inProcess = await steadyLatencies(queries, (q) => invoke(vaultSearch, ctx, { q, limit: 10 }));
  ctx.close();
  const http = await httpLatencies(env, queries);

  const row = {
    notes: n,
    build_s: round(build.ms / 1000, 1),
    build_rss_mib: round(build.rss_mib, 0),
    index_ratio: round(indexBytes / markdownBytes(vaultDir), 2),
    index_mb: round(indexBytes / 1e6, 0),
    no_change_ms: round(median(noChange), 0),
    ...prefixed("search", inProcess.first),
    ...prefixed("search_steady", inProcess.steady),
    ...(http ? { ...prefixed("http", http.first), ...prefixed("http_steady", http.steady) } : {}),
  };
  emit({ bench: "scale", ...row });
  rows.push(row);
}
printTable(rows);

interface Latency {
  p50: number;
  p90: number;
  p95: number;
  max: number;
  worst: string;
}

async function latencies(queries: string[], once: (q: string) => Promise<unknown>): Promise<Latency> {
  const perQuery = new Map<string, number>();
  for (const q of queries) {
    await once(q);
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await once(q);
      times.push(performance.now() - t);
    }
    perQuery.set(q, median(times));
  }
  const values = [...perQuery.values()];
  const [worst] = [...perQuery.entries()].sort((a, b) => b[1] - a[1]);
  return {
    p50: round(median(values), 2),
    p90: round(percentile(values, 90), 2),
    p95: round(percentile(values, 95), 2),
    max: round(worst![1], 2),
    worst: worst![0],
  };
}

/** latencies() in a fresh process, and again after STEADY_ROUNDS rounds of every query. */
async function steadyLatencies(queries: string[], once: (q: string) => Promise<unknown>): Promise<{ first: Latency; steady: Latency }> {
  const first = await latencies(queries, once);
  for (let i = 0; i < STEADY_ROUNDS; i++) for (const q of queries) await once(q);
  return { first, steady: await latencies(queries, once) };
}

async function httpLatencies(env: Record<string, string>, queries: string[]): Promise<{ first: Latency; steady: Latency } | null> {
  if (!statSafe(BIN)) return null;
  const server = await startServe(env);
  const headers = { authorization: `Bearer ${server.key}` };
  try {
    return await steadyLatencies(queries, async (q) => {
      const r = await fetch(`${server.url}/v1/search?q=${encodeURIComponent(q)}&limit=10`, { headers });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
    });
  } finally {
    await server.stop();
  }
}

function prefixed(prefix: string, l: Latency): Record<string, number | string> {
  return { [`${prefix}_p50_ms`]: l.p50, [`${prefix}_p90_ms`]: l.p90, [`${prefix}_p95_ms`]: l.p95, [`${prefix}_max_ms`]: l.max, [`${prefix}_worst`]: l.worst };
}

function markdownBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile() && entry.name.endsWith(".md") && !relative(dir, entry.parentPath).startsWith(".")) total += fileSize(join(entry.parentPath, entry.name));
  return total;
}

function fileSize(path: string): number {
  return statSafe(path)?.size ?? 0;
}

function statSafe(path: string) {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function printTable(table: Record<string, number | string>[]): void {
  const cell = (r: Record<string, number | string>, key: string) => String(r[key] ?? "–");
  const latencyCells = (r: Record<string, number | string>, prefix: string) =>
    ["p50", "p90", "p95", "max"].map((p) => cell(r, `${prefix}_${p}_ms`)).join(" / ");
  const line = (label: string, f: (r: Record<string, number | string>) => string) => `| ${label} | ${table.map(f).join(" | ")} |`;
  console.log(
    [
      `| notes | ${table.map((r) => r.notes).join(" | ")} |`,
      `|---|${table.map(() => "---").join("|")}|`,
      line("full build, s / peak RSS, MiB", (r) => `${cell(r, "build_s")} / ${cell(r, "build_rss_mib")}`),
      line("index.db ÷ Markdown", (r) => `${cell(r, "index_ratio")}× (${cell(r, "index_mb")} MB)`),
      line("no-change re-index, ms", (r) => cell(r, "no_change_ms")),
      line("search in process p50 / p90 / p95 / max, ms", (r) => latencyCells(r, "search")),
      line("worst query in process", (r) => cell(r, "search_worst")),
      line("… steady (a server up a while)", (r) => latencyCells(r, "search_steady")),
      line("search over HTTP p50 / p90 / p95 / max, ms", (r) => latencyCells(r, "http")),
      line("… steady", (r) => latencyCells(r, "http_steady")),
    ].join("\n"),
  );
}
