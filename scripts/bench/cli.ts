#!/usr/bin/env bun
/**
 * The CLI as an agent calls it: whole processes of dist/indx on a generated vault (BENCH_N notes,
 * default 20,000; or BENCH_VAULT, a vault already generated), its index built first. Cases:
 * `--help`, `search` on a fresh index (the read's check included, nothing changed on disk),
 * `search --no-refresh`, and `search` right after a note was added (the check indexes it).
 * Each round runs every case once, in turn, so a machine whose speed drifts slows them alike;
 * BENCH_BASELINE=/path/to/other/indx runs the same cases with another binary in the same rounds
 * (its own data folder) and prints the ratio of medians. Wall time from spawn to exit and the
 * process's peak RSS; medians over BENCH_RUNS rounds (default 15) after one warm-up round.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, emit, generatedVault, isolatedEnv, median, requireShared, round } from "./common.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const N = Number(process.env.BENCH_N ?? 20_000);
const vault = process.env.BENCH_VAULT ?? (requireShared("cli") ? generatedVault(N, 42) : process.exit(0));
const queries = (await Bun.file(join(vault, ".bench", "queries.txt")).text()).split("\n").filter(Boolean);

interface Binary {
  name: string;
  bin: string;
  env: Record<string, string>;
}
const binaries: Binary[] = [{ name: "this", bin: BIN, env: isolatedEnv("cli-this", vault) }];
if (process.env.BENCH_BASELINE) binaries.push({ name: "baseline", bin: process.env.BENCH_BASELINE, env: isolatedEnv("cli-baseline", vault) });

for (const b of binaries) {
  rmSync(b.env.INDX_DATA_DIR!, { recursive: true, force: true });
  const built = Bun.spawnSync([b.bin, "vault", "index"], { env: b.env, stdout: "ignore", stderr: "inherit" });
  if (built.exitCode !== 0) throw new Error(`${b.name}: vault index failed`);
}

/** A note the "after an add" case writes before its search, and removes after it (outside the timing). */
const added = join(vault, "bench-cli", "Added note.md");
mkdirSync(join(vault, "bench-cli"), { recursive: true });

const cases: Record<string, (q: string) => { args: string[]; before?: () => void; after?: (b: Binary) => void }> = {
  help: () => ({ args: ["--help"] }),
  search: (q) => ({ args: ["search", q, "--json"] }),
  search_no_refresh: (q) => ({ args: ["search", q, "--json", "--no-refresh"] }),
  search_after_add: (q) => ({
    args: ["search", q, "--json"],
    before: () => writeFileSync(added, `# Added\n\n${q} written just before the search\n`),
    // Removed, and the removal indexed, untimed: the next round's `search` finds a fresh index.
    after: (b) => {
      rmSync(added, { force: true });
      Bun.spawnSync([b.bin, "vault", "status"], { env: b.env, stdout: "ignore", stderr: "ignore" });
    },
  }),
};

const wall: Record<string, number[]> = {};
const rss: Record<string, number[]> = {};
for (let r = 0; r <= RUNS; r++) {
  const q = queries[r % queries.length]!;
  for (const [name, make] of Object.entries(cases))
    for (const b of binaries) {
      const c = make(q);
      c.before?.();
      const t = performance.now();
      const p = Bun.spawnSync([b.bin, ...c.args], { env: b.env, stdout: "pipe", stderr: "pipe" });
      const ms = performance.now() - t;
      c.after?.(b);
      if (p.exitCode !== 0) throw new Error(`${b.name} ${c.args.join(" ")}: exit ${p.exitCode}: ${p.stderr.toString()}`);
      if (r === 0) continue;
      const key = `${name}.${b.name}`;
      (wall[key] ??= []).push(ms);
      // Bun gives the child's peak RSS in bytes.
      (rss[key] ??= []).push((p.resourceUsage?.maxRSS ?? 0) / 2 ** 20);
    }
}
rmSync(join(vault, "bench-cli"), { recursive: true, force: true });

for (const name of Object.keys(cases)) {
  const row: Record<string, unknown> = { bench: `cli.${name}`, notes: N, runs: RUNS };
  for (const b of binaries) {
    row[`${b.name}_ms_p50`] = round(median(wall[`${name}.${b.name}`]!), 1);
    row[`${b.name}_rss_mib_p50`] = round(median(rss[`${name}.${b.name}`]!), 1);
  }
  if (binaries.length === 2) row.ratio = round((row.this_ms_p50 as number) / (row.baseline_ms_p50 as number), 2);
  emit(row);
}
