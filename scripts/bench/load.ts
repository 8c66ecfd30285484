#!/usr/bin/env bun
/**
 * Load on `indx serve` over REST: 1 client, then 30 concurrent clients (BENCH_CLIENTS), each
 * sending requests back to back for BENCH_SECONDS (default 20) per phase, on a copy of the
 * generated vault (BENCH_N notes, default 5,000; ../shared/tools/corpus-gen.ts). Phases:
 * - search: POST /v1/search only — throughput with 1 and with N clients, and their ratio;
 * - mixed: search 35 %, note_get 25 %, note_patch 25 % (with If-Match, each client on a note of its
 *   own, so a 412 would be a bug; BENCH_PATCH=property, the default, sets a frontmatter property,
 *   as an agent updating a status does; BENCH_PATCH=append appends a line, so each note grows by a
 *   line per patch — hundreds to thousands of lines in a 3-minute phase, which then measures the
 *   reindex of ever larger notes more than the write), base_query 10 % (an inline base over one
 *   folder, filtered and sorted: its rows are recomputed whenever a patch moved the index),
 *   note_list 5 % (by path or by mtime).
 * BENCH_PHASES=mixed (or search) runs only those phases after the warm-up.
 * Prints per operation p50/p95/p99 latency and count, requests per second, the 429s and every
 * other non-2xx, then one JSON line per phase. The rate limit is off (a 429 is then the server's
 * own busy answer); the watcher is on, as `indx serve` runs by default.
 *
 * Which indx: BENCH_INDX=<checkout> runs `bun <checkout>/src/main.ts serve` (default: this
 * checkout), BENCH_BIN=<binary> a compiled one. Before/after: run this script once with
 * BENCH_INDX pointing at each checkout, on the same BENCH_N. BENCH_SHARED names ../shared when the
 * checkout is a git worktree.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { emit, generatedVault, isolatedEnv, percentile, ROOT, requireShared, round } from "./common.ts";

if (!requireShared("server.load")) process.exit(0);

const n = Number(process.env.BENCH_N ?? 5000);
const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const clients = Number(process.env.BENCH_CLIENTS ?? 30);
const indx = process.env.BENCH_BIN ? [process.env.BENCH_BIN] : ["bun", join(process.env.BENCH_INDX ?? ROOT, "src", "main.ts")];
const label = process.env.BENCH_LABEL ?? process.env.BENCH_BIN ?? process.env.BENCH_INDX ?? "this checkout";

// A fresh copy per run: the patches change notes, and each run starts from the same vault.
const source = generatedVault(n, 42);
const work = mkdtempSync(join(tmpdir(), "indx-load-"));
const vault = join(work, "vault");
cpSync(source, vault, { recursive: true });
const queries = readFileSync(join(vault, ".bench", "queries.txt"), "utf8")
  .split("\n")
  .filter(Boolean);
const notes = listNotes(vault);
const env = { ...isolatedEnv("load", vault), INDX_DATA_DIR: join(work, "data"), INDX_RATE_LIMIT_PER_SECOND: "0" };

/** The server's resident memory now and at its peak, in MiB (Linux's /proc; null elsewhere). */
function memoryOf(pid: number): { rss_mib: number; peak_rss_mib: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
    return { rss_mib: round(kib("VmRSS") / 1024, 0), peak_rss_mib: round(kib("VmHWM") / 1024, 0) };
  } catch {
    return null;
  }
}

function listNotes(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile() && e.name.endsWith(".md") && !e.parentPath.includes("/.")) out.push(relative(dir, join(e.parentPath, e.name)));
  return out.sort();
}

async function startServer(): Promise<{ url: string; key: string; pid: number; stop(): Promise<void> }> {
  const server = Bun.spawn([...indx, "serve", "--port", "0"], { env, stdout: "ignore", stderr: "pipe" });
  const reader = server.stderr.getReader();
  let seen = "";
  let url = "";
  while (!url) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`indx serve did not start:\n${seen}`);
    seen += new TextDecoder().decode(value);
    url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(seen)?.[1] ?? "";
  }
  // Keep reading stderr so the server never blocks on a full pipe.
  void (async () => {
    while (!(await reader.read()).done);
  })();
  const key = Bun.spawnSync([...indx, "config", "reveal-api-key"], { env })
    .stdout.toString()
    .trim();
  return {
    url,
    key,
    pid: server.pid,
    async stop() {
      server.kill();
      await server.exited;
    },
  };
}

type OpName = "search" | "note_get" | "note_patch" | "note_list" | "base_query";
interface Tally {
  latencies: Record<string, number[]>;
  statuses: Record<string, number>;
  requests: number;
}

const server = await startServer();
const auth = { authorization: `Bearer ${server.key}` };
const json = { ...auth, "content-type": "application/json" };
const at = (path: string) => path.split("/").map(encodeURIComponent).join("/");
/** Two views over one folder of the generated vault: a filtered one sorted by date, and a grouped one. */
const BASE = [
  "filters:",
  '  and: [file.inFolder("projects")]',
  "views:",
  "  - type: table",
  "    name: Active",
  '    filters: status == "active"',
  "    order: [file.name, status, date]",
  "    sort: [{ property: date, direction: DESC }]",
  "    limit: 50",
  "  - type: table",
  "    name: By status",
  "    groupBy: { property: status, direction: ASC }",
  "    order: [file.name, date]",
  "    limit: 50",
].join("\n");

const patchMode = process.env.BENCH_PATCH ?? "property";
const patchOp = (text: string) => (patchMode === "append" ? { op: "append_body", markdown: `${text}\n` } : { op: "set_frontmatter", key: "load", value: text });

/** One client: its own random stream, its own note to patch (its etag kept from each answer). */
function client(id: number, mix: readonly [OpName, number][], tally: Tally) {
  let seed = id * 7919 + 1;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  // Spread over the whole (sorted) vault: a stride of 97 put every client of 30 in archive/, the
  // generated vault's largest notes (40–450 KB, where a typical note is a few KB).
  // BENCH_PATCH_NOTES=archive keeps that choice, to measure writes to large notes.
  const own = notes[process.env.BENCH_PATCH_NOTES === "archive" ? (id * 97) % notes.length : Math.floor(((id + 0.5) * notes.length) / clients) % notes.length]!;
  let etag: string | null = null;
  const pick = (): OpName => {
    let r = random();
    for (const [op, weight] of mix) if ((r -= weight) < 0) return op;
    return mix[0]![0];
  };
  const request = (op: OpName): Promise<Response> => {
    if (op === "search")
      return fetch(`${server.url}/v1/search`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ q: queries[Math.floor(random() * queries.length)], limit: 10 }),
      });
    if (op === "note_get") return fetch(`${server.url}/v1/notes/${at(notes[Math.floor(random() * notes.length)]!)}`, { headers: auth });
    if (op === "note_list") return fetch(`${server.url}/v1/notes?limit=50&sort=${random() < 0.5 ? "path" : "mtime"}`, { headers: auth });
    if (op === "base_query")
      return fetch(`${server.url}/v1/bases/query`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ base: BASE, view: random() < 0.5 ? "Active" : "By status" }),
      });
    return fetch(`${server.url}/v1/notes/${at(own)}`, {
      method: "PATCH",
      headers: { ...json, ...(etag ? { "if-match": etag } : {}) },
      body: JSON.stringify({ ops: [patchOp(`load ${id} ${Date.now()}`)] }),
    });
  };
  return async (until: number) => {
    while (performance.now() < until) {
      const op = pick();
      const started = performance.now();
      const res = await request(op);
      const body = await res.text();
      const ms = performance.now() - started;
      (tally.latencies[op] ??= []).push(ms);
      tally.statuses[`${op} ${res.status}`] = (tally.statuses[`${op} ${res.status}`] ?? 0) + 1;
      tally.requests++;
      if (op === "note_patch" && res.ok) etag = (JSON.parse(body) as { data: { etag: string } }).data.etag;
      else if (op === "note_patch") etag = null; // read again at the next patch: no If-Match once
    }
  };
}

async function phase(name: string, mix: readonly [OpName, number][], count: number, secs: number) {
  const tally: Tally = { latencies: {}, statuses: {}, requests: 0 };
  const started = performance.now();
  const until = started + secs * 1000;
  await Promise.all(Array.from({ length: count }, (_, i) => client(i, mix, tally)(until)));
  const elapsed = (performance.now() - started) / 1000;
  const ops: Record<string, { count: number; p50: number; p95: number; p99: number }> = {};
  for (const [op, xs] of Object.entries(tally.latencies))
    ops[op] = { count: xs.length, p50: round(percentile(xs, 50), 1), p95: round(percentile(xs, 95), 1), p99: round(percentile(xs, 99), 1) };
  const non2xx = Object.entries(tally.statuses).filter(([k]) => !/ 2\d\d$/.test(k));
  const tooMany = non2xx.filter(([k]) => k.endsWith(" 429")).reduce((s, [, v]) => s + v, 0);
  const result = {
    bench: "server.load",
    phase: name,
    clients: count,
    seconds: round(elapsed, 1),
    rps: round(tally.requests / elapsed, 1),
    ops,
    status_429: tooMany,
    non_2xx: Object.fromEntries(non2xx),
    server_memory: memoryOf(server.pid),
  };
  const memory = result.server_memory ? `, server RSS ${result.server_memory.rss_mib} MiB (peak ${result.server_memory.peak_rss_mib})` : "";
  console.log(`\n${name}, ${count} client${count > 1 ? "s" : ""}: ${result.rps} req/s, 429: ${tooMany}, non-2xx: ${JSON.stringify(result.non_2xx)}${memory}`);
  for (const [op, s] of Object.entries(ops))
    console.log(`  ${op.padEnd(11)} n=${String(s.count).padStart(6)}  p50 ${s.p50} ms  p95 ${s.p95} ms  p99 ${s.p99} ms`);
  return result;
}

const SEARCH: [OpName, number][] = [["search", 1]];
const MIXED: [OpName, number][] = [
  ["search", 0.35],
  ["note_get", 0.25],
  ["note_patch", 0.25],
  ["base_query", 0.1],
  ["note_list", 0.05],
];
const only = new Set((process.env.BENCH_PHASES ?? "search,mixed").split(","));
const records: Record<string, unknown>[] = [];
try {
  console.log(
    `indx: ${label}; ${notes.length} notes; ${seconds} s per phase; note_patch: ${patchMode}; load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}`,
  );
  await phase("warm-up", MIXED, clients, Math.min(5, seconds));
  const pair = async (name: string, mix: [OpName, number][]) => {
    if (!only.has(name)) return null;
    const one = await phase(name, mix, 1, seconds);
    const many = await phase(name, mix, clients, seconds);
    records.push(one, many);
    return round(many.rps / one.rps, 2);
  };
  const ratios = { search: await pair("search", SEARCH), mixed: await pair("mixed", MIXED) };
  const mN = records.find((r) => r.phase === "mixed" && r.clients === clients) as { ops: Record<string, { p99: number }> } | undefined;
  console.log(`\nthroughput ${clients} clients ÷ 1 client: search ${ratios.search ?? "n/a"}×, mixed ${ratios.mixed ?? "n/a"}×`);
  console.log(
    `note_patch p99 with ${clients} mixed clients: ${mN?.ops.note_patch?.p99 ?? "n/a"} ms; 429s in all phases: ${records.reduce((s, r) => s + Number(r.status_429), 0)}\n`,
  );
  for (const r of records) emit({ ...r, indx: label, notes: notes.length, patch: patchMode });
  emit({
    bench: "server.load.ratio",
    indx: label,
    notes: notes.length,
    clients,
    ...ratios,
    note_patch_p99_ms: mN?.ops.note_patch?.p99 ?? null,
    load_average: loadavg().map((x) => round(x, 1)),
  });
} finally {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}
