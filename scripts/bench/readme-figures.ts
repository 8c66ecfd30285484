#!/usr/bin/env bun
/**
 * Re-measures every performance figure the README quotes (its Benchmarks table) and prints them as
 * that table, with the machine they were measured on: CPU model, cores, memory, OS, Bun's
 * version, the commit and the load average at the start. One run of each benchmark script
 * (index, search, scale at 5,000 and 100,000 notes, mcp, writes, scifact lexical, vectors), each in
 * its own process; their JSON lines are kept in .bench-out/readme-figures.jsonl.
 *
 *   bun run build && bun scripts/bench/readme-figures.ts            # measure, print the table
 *   bun scripts/bench/readme-figures.ts --write                     # … and put it in README.md
 *   bun scripts/bench/readme-figures.ts --only writes,mcp              # re-run some, keep the rest
 *   bun scripts/bench/readme-figures.ts --from .bench-out/readme-figures.jsonl [--write]
 *
 * Needs ../shared beside the checkout (BENCH_SHARED names it elsewhere) and dist/indx.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { arch, availableParallelism, cpus, loadavg, release, totalmem, type } from "node:os";
import { join } from "node:path";
import { BIN, outDir, ROOT, SHARED } from "./common.ts";

type Line = Record<string, unknown> & { bench: string };

const args = process.argv.slice(2);
const write = args.includes("--write");
const fromIndex = args.indexOf("--from");
const from = fromIndex >= 0 ? args[fromIndex + 1] : undefined;

/** Each script and the environment it runs with: the README's rows need nothing more. */
const RUNS: { script: string; env?: Record<string, string> }[] = [
  { script: "index.ts" },
  { script: "search.ts" },
  { script: "scale.ts", env: { BENCH_SIZES: "5000,100000" } },
  { script: "mcp.ts" },
  { script: "writes.ts" },
  { script: "scifact.ts", env: { BENCH_MODES: "lexical" } },
  { script: "vectors.ts" },
];

function machine(): string {
  const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
  const memGiB = Math.round(totalmem() / 1024 ** 3);
  const commit = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT, stdout: "pipe" }).stdout.toString().trim() || "unknown";
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(" / ");
  return `${cpu}, ${availableParallelism()} cores, ${memGiB} GiB; ${type()} ${release()} (${arch()}); Bun ${Bun.version}; commit ${commit}; load average at the start ${load} (1 / 5 / 15 min)`;
}

/**
 * Runs the scripts (all, or those `--only` names) and returns every JSON line they printed. Each
 * script's lines are appended to the log as it ends, so a script that fails loses only its own
 * figures; a failure is reported and the next script runs.
 */
function measure(only: Set<string> | null, log: string): Line[] {
  if (!existsSync(SHARED)) throw new Error(`${SHARED} is missing: put ../shared beside the checkout or name it with BENCH_SHARED`);
  if (!existsSync(BIN)) throw new Error("dist/indx is missing: run `bun run build` first");
  const lines: Line[] = [];
  for (const run of RUNS) {
    if (only && !only.has(run.script.replace(/\.ts$/, ""))) continue;
    const started = performance.now();
    process.stderr.write(`readme-figures: ${run.script} …\n`);
    const p = Bun.spawnSync(["bun", join(import.meta.dir, run.script)], {
      env: { ...process.env, BENCH_SHARED: SHARED, ...run.env },
      stdout: "pipe",
      stderr: "inherit",
    });
    const found: Line[] = [];
    for (const text of p.stdout.toString().split("\n")) {
      if (!text.startsWith("{")) continue;
      const line = JSON.parse(text) as Line;
      if (typeof line.bench === "string") found.push(line);
    }
    lines.push(...found);
    if (found.length) appendFileSync(log, `${found.map((l) => JSON.stringify(l)).join("\n")}\n`);
    const took = Math.round((performance.now() - started) / 1000);
    process.stderr.write(`readme-figures: ${run.script} ${p.exitCode === 0 ? "done" : `FAILED (exit ${p.exitCode})`} in ${took} s\n`);
  }
  return lines;
}

/** A duration as the README writes it: ms below ten with two decimals, whole ms above, seconds past 10 s. */
function ms(v: unknown): string {
  if (typeof v !== "number") return "–";
  if (v >= 10_000) return `${(v / 1000).toFixed(1)} s`;
  if (v >= 1000) return `${(v / 1000).toFixed(2)} s`;
  return v >= 10 ? `${Math.round(v)} ms` : `${v.toFixed(2)} ms`;
}

function table(lines: Line[]): string[] {
  const none: Record<string, unknown> = {};
  const one = (bench: string): Record<string, unknown> => lines.find((l) => l.bench === bench) ?? none;
  const scale = (notes: number): Record<string, unknown> => lines.find((l) => l.bench === "scale" && l.notes === notes) ?? none;
  const num = (v: unknown, digits: number) => (typeof v === "number" ? v.toFixed(digits) : "–");
  const s5k = scale(5000);
  const s100k = scale(100000);
  const rows: [string, string][] = [
    [
      "full index build / no-change re-index / 50-file update",
      `${ms(one("index.full_build").median_ms)} / ${ms(one("index.no_change").median_ms)} / ${ms(one("index.incremental_50").ms)}`,
    ],
    [
      "search median: in process, fresh / steady (`scale.ts`) / HTTP / CLI subprocess",
      `${ms(one("search.in_process").median_ms)} / ${ms(s5k.search_steady_p50_ms)} / ${ms(one("search.http").median_ms)} / ${ms(one("search.cli_subprocess").median_ms)}`,
    ],
    [
      "100,000 notes (`scale.ts`): build, peak RSS / index ÷ Markdown / no-change / search p50, p95 (fresh process) / p50, p95 (steady)",
      `${typeof s100k.build_s === "number" ? `${s100k.build_s} s` : "–"}, ${s100k.build_rss_mib ?? "–"} MiB / ${num(s100k.index_ratio, 2)}× / ${ms(s100k.no_change_ms)} / ${ms(s100k.search_p50_ms)}, ${ms(s100k.search_p95_ms)} / ${ms(s100k.search_steady_p50_ms)}, ${ms(s100k.search_steady_p95_ms)}`,
    ],
    ["cold start of `dist/indx --help`", ms(one("cold_start.help").median_ms)],
    [
      "MCP over HTTP, tools/call vault_search / stdio spawn + initialize",
      `${ms(one("mcp.http.vault_search").median_ms)} / ${ms(one("mcp.stdio.spawn_initialize").median_ms)}`,
    ],
    ["note_patch / note_write (locks, fsync, reindex, event)", `${ms(one("writes.note_patch").median_ms)} / ${ms(one("writes.note_write_replace").median_ms)}`],
    ["SciFact, lexical: nDCG@10 / Recall@100", `${num(one("scifact.lexical").ndcg_at_10, 4)} / ${num(one("scifact.lexical").recall_at_100, 4)}`],
    [
      "20,000 chunks × 768: KNN / semantic search / hybrid search (in process, p50)",
      `${ms(one("vectors.knn").p50_ms)} / ${ms(one("vectors.search_semantic").p50_ms)} / ${ms(one("vectors.search_hybrid").p50_ms)}`,
    ],
  ];
  return ["| what | figure |", "|---|---|", ...rows.map(([what, figure]) => `| ${what} | ${figure} |`)];
}

const START = "<!-- readme-figures:start -->";
const END = "<!-- readme-figures:end -->";

const onlyIndex = args.indexOf("--only");
const only = onlyIndex >= 0 ? new Set((args[onlyIndex + 1] ?? "").split(",")) : null;
const log = join(outDir("."), "readme-figures.jsonl");
const readLog = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
let lines: Line[];
if (from) lines = readLog(from);
else {
  // A fresh run starts the log with the machine; --only adds its own machine line (commit and load
  // of that run, and the scripts it ran) to the log of an earlier run on the same machine.
  const run = JSON.stringify({ bench: "readme-figures.machine", machine: machine(), date: new Date().toISOString(), scripts: only ? [...only] : null });
  if (!only || !existsSync(log)) writeFileSync(log, `${run}\n`);
  else appendFileSync(log, `${run}\n`);
  measure(only, log);
  lines = readLog(log);
}
// Every run that measured some of the figures, in order: a row names the run it came from.
const runs = lines.filter((l) => l.bench === "readme-figures.machine");
// The last line of each figure wins: a script re-run with --only replaces its earlier figures.
lines = [...new Map(lines.map((l) => [`${l.bench}:${String(l.notes ?? "")}`, l])).values()];
const kept = runs.filter((r, i) => {
  // A run counts if some script it ran was not run again by a later one.
  const later = new Set(
    runs.slice(i + 1).flatMap((l) => (Array.isArray(l.scripts) ? (l.scripts as string[]) : RUNS.map((x) => x.script.replace(/\.ts$/, "")))),
  );
  const its = Array.isArray(r.scripts) ? (r.scripts as string[]) : RUNS.map((x) => x.script.replace(/\.ts$/, ""));
  return its.some((name) => !later.has(name));
});
const describeRun = (r: Line, i: number): string => {
  const later = new Set(kept.slice(i + 1).flatMap((l) => (Array.isArray(l.scripts) ? (l.scripts as string[]) : [])));
  const its = (Array.isArray(r.scripts) ? (r.scripts as string[]) : RUNS.map((x) => x.script.replace(/\.ts$/, ""))).filter((n) => !later.has(n));
  return `${String(r.date ?? "").slice(0, 10)}: ${String(r.machine)}${kept.length > 1 ? ` (${its.join(", ")})` : ""}`;
};
const machineLine = kept.length ? kept.map(describeRun).join("; and ") : `${new Date().toISOString().slice(0, 10)}: ${machine()}`;
const block = [
  START,
  `Measured by \`bun scripts/bench/readme-figures.ts\` (one run of each script, medians over its runs) on ${machineLine}.`,
  "",
  ...table(lines),
  END,
].join("\n");
console.log(block);
if (write) {
  const readme = join(ROOT, "README.md");
  const text = readFileSync(readme, "utf8");
  const at = text.indexOf(START);
  const end = text.indexOf(END);
  if (at < 0 || end < at) throw new Error(`README.md has no ${START} … ${END} block`);
  writeFileSync(readme, text.slice(0, at) + block + text.slice(end + END.length));
  console.error("readme-figures: README.md updated");
}
