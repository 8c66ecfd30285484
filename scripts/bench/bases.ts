#!/usr/bin/env bun
/**
 * base_query latency in process on generated vaults (../shared/tools/corpus-gen.ts) of 5,000,
 * 10,000 and 20,000 notes: a base with three filters, two formulas, a sort, a group and a summary.
 * Per size:
 * - cold_ms: the first query of a fresh context, which reads the whole vault from the index;
 * - median_ms / p90_ms: base_query after warm-up runs (a server answers warm);
 * - after_update_ms: the first query after an edit that changes the result is indexed (the
 *   snapshot rereads only the changed file), and its ratio to cold_ms;
 * - prefilter_ratio: the query with the index's prefilter over the same query without it, as the
 *   median of ratios taken pair by pair (A B A B …), so a drift of the shared machine cancels out;
 *   selective_ratio: the same for a base whose filters keep a few dozen notes (SELECTIVE).
 * The load average goes with each line: on a shared machine it moves every figure.
 * BENCH_SIZES="5000,20000" picks the sizes, BENCH_RUNS the timed runs.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { App } from "../../src/app/context.ts";
import { baseQuery } from "../../src/bases/ops.ts";
import { parseBase } from "../../src/bases/parse.ts";
import { compileBase, NO_FILE } from "../../src/bases/plan.ts";
import { runView } from "../../src/bases/query.ts";
import { type Prefilter, snapshotOf } from "../../src/bases/snapshot.ts";
import { loadConfig } from "../../src/config/load.ts";
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

/** Filters the index can narrow to a few files: a folder, a status and a date. */
const SELECTIVE = `
filters:
  and:
    - file.inFolder("projects")
    - status == "active"
    - 'date >= "2024-01-01"'
formulas:
  age_days: (today() - date).days.round()
views:
  - type: table
    name: Recent active projects
    order: [file.name, formula.age_days]
    sort:
      - property: formula.age_days
        direction: ASC
`;

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WARMUP = 10;
const EDITS = 5;
const sizes = (process.env.BENCH_SIZES ?? "5000,10000,20000").split(",").map(Number);

const time = async (f: () => unknown) => {
  const t = performance.now();
  await f();
  return performance.now() - t;
};

for (const n of sizes) {
  const vaultDir = generatedVault(n, 42);
  const env = isolatedEnv(`bases-${n}`, vaultDir);
  rmSync(env.INDX_DATA_DIR!, { recursive: true, force: true });
  const open = () => new App(Vault.open(loadConfig({ env })));
  await open().updateIndex({ build: true });

  const cold: number[] = [];
  for (let i = 0; i < 3; i++) {
    const fresh = open();
    cold.push(await time(() => invoke(baseQuery, fresh, { base: BASE, limit: 100 })));
    fresh.close();
  }

  const ctx = open();
  const query = () => invoke(baseQuery, ctx, { base: BASE, limit: 100 });
  const first = await query();
  for (let i = 0; i < WARMUP; i++) await query();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await time(query));

  const prefilterRatio = async (yaml: string) => {
    const compiled = compileBase(parseBase(yaml, "bench"), yaml, "bench");
    const runWith = (prefilter: Prefilter) => () =>
      runView(compiled, 0, { world: snapshotOf(ctx.index, ctx.vault), thisEntry: NO_FILE, now: Date.now(), offset: 0, pageSize: 100, prefilter });
    const ratios: number[] = [];
    for (let i = 0; i < RUNS; i++) ratios.push((await time(runWith("selective"))) / (await time(runWith("off"))));
    return median(ratios);
  };
  const prefilter = await prefilterRatio(BASE);
  const selective = await prefilterRatio(SELECTIVE);

  // Flip one open note to done and back: each edit changes the result.
  const path = first.rows.find((r) => r.cells.status?.value !== "done")!.path;
  const original = readFileSync(join(vaultDir, path), "utf8");
  const afterUpdate: number[] = [];
  for (let i = 0; i < EDITS; i++) {
    writeFileSync(join(vaultDir, path), i % 2 === 0 ? original.replace(/^status: .*$/m, "status: done") : original);
    await ctx.updateIndex({ paths: [path] });
    afterUpdate.push(await time(query));
  }
  writeFileSync(join(vaultDir, path), original);
  await ctx.updateIndex({ paths: [path] });

  emit({
    bench: "bases",
    notes: n,
    matched: first.matched,
    groups: first.groups?.length ?? 0,
    cold_ms: round(median(cold), 1),
    median_ms: round(median(times), 2),
    p90_ms: round(percentile(times, 90), 2),
    after_update_ms: round(median(afterUpdate), 1),
    after_update_vs_cold: round(median(afterUpdate) / median(cold), 3),
    prefilter_ratio: round(prefilter, 3),
    selective_ratio: round(selective, 3),
    runs: RUNS,
    load_average: round(loadavg()[0]!, 2),
  });
  ctx.close();
}
