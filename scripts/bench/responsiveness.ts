#!/usr/bin/env bun
/**
 * Does the server keep answering while it does heavy work? Against dist/indx serve on the
 * generated vault (BENCH_N notes, default 20,000):
 * - server.stall.rebuild: a prober pings /health and searches every 50 ms while
 *   POST /v1/vault/reindex rebuilds the index; prints the longest gap between two answers;
 * - server.stall.move: the same during a note_move of the most linked note, with a 100 KB canvas
 *   nested 50,000 levels deep in the vault;
 * - server.throughput: REST searches per second with one client at a time and with 30
 *   concurrent clients, in the same run, with p50/p99 latency;
 * - server.stall.ai_pattern / server.stall.ai_stream (scripts/bench/ai-stall.ts, on the demo
 *   vault against the fake AI server): the longest /health gap while ai_extract checks a
 *   catastrophic-backtracking pattern (`^(a+)+$`) over 20 model values, and while a 1 MB ai_ask
 *   answer streams. BENCH_PARTS=ai runs only these; BENCH_BIN=<path> measures another binary.
 * Build the binary first (`bun run build`).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { aiStalls } from "./ai-stall.ts";
import { BIN, emit, generatedVault, isolatedEnv, median, percentile, requireShared, round, startServe } from "./common.ts";

if (process.env.BENCH_PARTS === "ai") {
  await aiStalls();
  process.exit(0);
}
if (!requireShared("server.responsiveness")) process.exit(0);
if (!existsSync(BIN)) {
  emit({ bench: "server.responsiveness", skipped: "dist/indx missing: run bun run build" });
  process.exit(0);
}

const n = Number(process.env.BENCH_N ?? 20000);
const vaultDir = generatedVault(n, 42);
const queries = readFileSync(join(vaultDir, ".bench", "queries.txt"), "utf8")
  .split("\n")
  .filter(Boolean);
const depth = 50_000;
writeFileSync(
  join(vaultDir, "Deep.canvas"),
  `{"nodes":[{"id":"a","type":"text","text":"x","x":0,"y":0,"width":1,"height":1,"extra":${"[".repeat(depth)}"x"${"]".repeat(depth)}}],"edges":[]}`,
);
const env = isolatedEnv("responsiveness", vaultDir);
rmSync(env.INDX_DATA_DIR!, { recursive: true, force: true });
const server = await startServe(env);
const headers = { authorization: `Bearer ${server.key}`, "content-type": "application/json" };

async function search(q: string): Promise<number> {
  const t = performance.now();
  const r = await fetch(`${server.url}/v1/search`, { method: "POST", headers, body: JSON.stringify({ q, limit: 10 }) });
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`search: HTTP ${r.status}`);
  return performance.now() - t;
}

/** Pings and searches every 50 ms until `work` settles; the gaps are between consecutive answers. */
async function probeDuring(label: string, work: () => Promise<unknown>): Promise<void> {
  let running = true;
  let last = performance.now();
  let longest = 0;
  const latencies: number[] = [];
  const answered = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  };
  const probe = async (i: number) => {
    const t = performance.now();
    const h = await fetch(`${server.url}/health`);
    await h.arrayBuffer();
    answered();
    await search(queries[i % queries.length]!);
    answered();
    latencies.push(performance.now() - t);
  };
  const prober = (async () => {
    for (let i = 0; running; i++) {
      const tick = performance.now();
      await probe(i);
      await Bun.sleep(Math.max(0, 50 - (performance.now() - tick)));
    }
  })();
  const started = performance.now();
  await work();
  const workMs = performance.now() - started;
  running = false;
  await prober;
  emit({
    bench: label,
    notes: n,
    work_ms: Math.round(workMs),
    probes: latencies.length,
    longest_gap_ms: round(longest, 1),
    probe_p50_ms: round(median(latencies), 1),
    probe_p99_ms: round(percentile(latencies, 99), 1),
  });
}

async function post(path: string, body: unknown): Promise<void> {
  const r = await fetch(`${server.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${path}: HTTP ${r.status} ${text.slice(0, 200)}`);
}

await probeDuring("server.stall.rebuild", () => post("/v1/vault/reindex", { rebuild: true, embeddings: false }));

const from = mostLinkedNote(vaultDir);
if (from) {
  const to = `Moved/${from.split("/").pop()}`;
  const at = (p: string) => p.split("/").map(encodeURIComponent).join("/");
  await probeDuring("server.stall.move", () => post(`/v1/notes/${at(from)}/move`, { to }));
  await post(`/v1/notes/${at(to)}/move`, { to: from });
}

/** The note most wikilinks name, found by scanning the files (the bench reads no index). */
function mostLinkedNote(dir: string): string | null {
  const counts = new Map<string, number>();
  const byName = new Map<string, string>();
  for (const path of new Bun.Glob("**/*.md").scanSync({ cwd: dir })) {
    byName.set(path.split("/").pop()!.replace(/\.md$/, "").toLowerCase(), path);
    for (const m of readFileSync(join(dir, path), "utf8").matchAll(/\[\[([^\]|#]+)/g)) {
      const name = m[1]!.split("/").pop()!.toLowerCase();
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
  }
  const [top] = [...counts].filter(([name]) => byName.has(name)).sort((a, b) => b[1] - a[1]);
  return top ? byName.get(top[0])! : null;
}

/** Searches per second for `clients` concurrent loops over `ms` milliseconds. */
async function throughput(clients: number, ms: number): Promise<{ rps: number; p50: number; p99: number }> {
  const latencies: number[] = [];
  const until = performance.now() + ms;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = c; performance.now() < until; i += clients) latencies.push(await search(queries[i % queries.length]!));
    }),
  );
  return { rps: latencies.length / (ms / 1000), p50: median(latencies), p99: percentile(latencies, 99) };
}

await throughput(4, 1000); // warm-up
const one = await throughput(1, 5000);
const many = await throughput(30, 5000);
emit({
  bench: "server.throughput",
  notes: n,
  sequential_rps: round(one.rps, 1),
  concurrent30_rps: round(many.rps, 1),
  ratio: round(many.rps / one.rps, 2),
  sequential_p50_ms: round(one.p50, 2),
  concurrent30_p50_ms: round(many.p50, 2),
  concurrent30_p99_ms: round(many.p99, 2),
});
await server.stop();
await aiStalls();
