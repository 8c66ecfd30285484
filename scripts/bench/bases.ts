#!/usr/bin/env bun
/**
 * base_query latency in process on generated vaults (../shared/tools/corpus-gen.ts) of 5,000,
 * 10,000 and 20,000 notes: a base with three filters, two formulas, a sort, a group and a summary.
 * Per size: the first query after indexing (it loads the vault's snapshot from the index), then,
 * after warm-up runs (a server answers warm), the median and p90 of N timed runs. The load
 * average goes with each line: on a shared machine it moves every figure. BENCH_SIZES="5000,20000"
 * picks the sizes.
 */
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { baseQuery } from "../../src/bases/ops.ts";
import { loadConfig } from "../../src/config/load.ts";
import { OpContext } from "../../src/ops/context.ts";
import { invoke } from "../../src/ops/invoke.ts";
import { Vault } from "../../src/vault/vault.ts";
import { emit, generatedVault, isolatedEnv, median, percentile, requireShared, round } from "./common.ts";

if (!requireShared("bases")) process.exit(0);

const BASE = `
filters:
  and:
    - file.ext == "md"
    - status != "done"
    - date > "2020-06-01"
formulas:
  age_days: (today() - date).days.round()
  title_words: title.split(" ").length
views:
  - type: table
    name: Open work
    order: [file.name, status, date, formula.age_days, formula.title_words]
    sort:
      - property: formula.age_days
        direction: ASC
    groupBy:
      property: status
      direction: ASC
    summaries:
      formula.age_days: Average
`;

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WARMUP = 10;
const sizes = (process.env.BENCH_SIZES ?? "5000,10000,20000").split(",").map(Number);

for (const n of sizes) {
  const vaultDir = generatedVault(n, 42);
  const env = isolatedEnv(`bases-${n}`, vaultDir);
  rmSync(env.INDX_DATA_DIR!, { recursive: true, force: true });
  const ctx = new OpContext(Vault.open(loadConfig({ env })));
  await ctx.updateIndex({ build: true });
  const query = () => invoke(baseQuery, ctx, { base: BASE, limit: 100 });
  let t = performance.now();
  const first = await query();
  const firstMs = performance.now() - t;
  for (let i = 0; i < WARMUP; i++) await query();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    t = performance.now();
    await query();
    times.push(performance.now() - t);
  }
  emit({
    bench: "bases",
    notes: n,
    matched: first.matched,
    groups: first.groups?.length ?? 0,
    first_query_ms: round(firstMs, 1),
    median_ms: round(median(times), 2),
    p90_ms: round(percentile(times, 90), 2),
    runs: RUNS,
    load_average: round(loadavg()[0]!, 2),
  });
  ctx.close();
}
