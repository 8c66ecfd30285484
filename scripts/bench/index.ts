#!/usr/bin/env bun
/**
 * Index benchmarks on the generated 5,000-note vault (corpus-gen --n 5000 --seed 42): full build,
 * no-change re-index, and a 50-file incremental update (corpus-gen --mutate). In process, so the
 * figures are the indexer's, not process start-up's. Prints one JSON line per figure.
 */
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { runIndex, updateIndex } from "../../src/index/build/indexer.ts";

import { indexIdentity } from "../../src/index/storage/connection.ts";
import { IndexStore } from "../../src/index/storage/store.ts";
import { Vault } from "../../src/vault/vault.ts";
import { emit, generatedVault, isolatedEnv, median, outDir, requireShared, round, SHARED } from "./common.ts";

if (!requireShared("index")) process.exit(0);
const n = Number(process.env.BENCH_N ?? 5000);
const source = generatedVault(n, 42);
const vaultDir = join(outDir("index"), "vault");
rmSync(vaultDir, { recursive: true, force: true });
cpSync(source, vaultDir, { recursive: true });
const env = isolatedEnv("index", vaultDir);
const vault = Vault.open(loadConfig({ env }));

const builds: number[] = [];
for (let i = 0; i < 3; i++) {
  rmSync(vault.dataDir, { recursive: true, force: true });
  const t = performance.now();
  const r = runIndex(vault, { rebuild: true });
  builds.push(performance.now() - t);
  if (i === 0) emit({ bench: "index.files", notes: r.added, warnings: r.warnings.length });
}
emit({
  bench: "index.full_build",
  notes: n,
  median_ms: round(median(builds)),
  runs: builds.map((x) => round(x)),
  notes_per_s: round(n / (median(builds) / 1000), 0),
});

const store = IndexStore.openExisting(vault.indexPath, indexIdentity(vault));
const noChange: number[] = [];
for (let i = 0; i < 7; i++) {
  const t = performance.now();
  updateIndex(vault, store);
  noChange.push(performance.now() - t);
}
emit({ bench: "index.no_change", median_ms: round(median(noChange)), runs: noChange.map((x) => round(x)) });

const mutate = Bun.spawnSync(
  ["bun", join(SHARED, "tools", "corpus-gen.ts"), "--mutate", vaultDir, "--seed", "7", "--change", "50", "--add", "0", "--delete", "0"],
  {
    stdout: "ignore",
    stderr: "inherit",
  },
);
if (mutate.exitCode === 0) {
  const t = performance.now();
  const r = updateIndex(vault, store);
  emit({ bench: "index.incremental_50", ms: round(performance.now() - t), updated: r.updated, added: r.added, deleted: r.deleted });
}
store.close();
emit({ bench: "index.peak_rss_mb", value: round(process.resourceUsage().maxRSS / 1024, 1) });
