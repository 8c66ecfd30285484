/**
 * Does the server keep answering while an AI call does work that grows with the model's reply?
 * (docs/decisions.md, "AI replies that cannot block the server"). `dist/indx serve` (or
 * BENCH_BIN) on a copy of the demo vault, with its chat model on the fake AI server; a prober
 * asks /health every 20 ms and the longest gap between two answers is reported:
 * - server.stall.ai_pattern: ai_extract with an items pattern `^(a+)+$` and a model that answers
 *   20 values of BENCH_PATTERN_A (26) a's and a b: 2^26 steps each in a backtracking engine;
 * - server.stall.ai_stream: ai_ask streamed over SSE while the model writes a 1 MB answer in
 *   1,000 pieces;
 * - server.memory.ai_reply_100mb: the server's peak memory before and after a model answers an
 *   ai_ask (not streamed) with 100 MB.
 * Run from scripts/bench/responsiveness.ts (BENCH_PARTS=ai for only these; BENCH_LENIENT_OLLAMA=1
 * for a binary from before indx held to Ollama's grammar limits).
 */
import { cpSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { BIN, emit, isolatedEnv, median, outDir, round } from "./common.ts";

export async function aiStalls(): Promise<void> {
  const bin = process.env.BENCH_BIN ?? BIN;
  const vault = join(outDir("ai-stall"), "vault");
  rmSync(vault, { recursive: true, force: true });
  cpSync(join(import.meta.dir, "..", "..", "fixtures", "demo-vault"), vault, { recursive: true });
  const fake = Bun.spawn(["bun", join(import.meta.dir, "ai-stall-fake.ts")], { env: process.env, stdout: "pipe", stderr: "inherit" });
  const fakeUrl = await firstLine(fake.stdout);
  const env: Record<string, string> = {
    ...isolatedEnv("ai-stall", vault),
    INDX_AI_PROVIDER: "ollama",
    INDX_AI_MODEL: "fake-chat",
    INDX_OLLAMA_URL: fakeUrl,
    INDX_AI_CACHE: "off",
    INDX_RATE_LIMIT_PER_SECOND: "0",
  };
  rmSync(env.INDX_DATA_DIR!, { recursive: true, force: true });
  Bun.spawnSync([bin, "vault", "index"], { env, stdout: "ignore", stderr: "ignore" });
  const server = await serve(bin, env);
  const headers = { authorization: `Bearer ${server.key}`, "content-type": "application/json" };
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${server.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    const text = await r.text();
    return { status: r.status, bytes: text.length };
  };

  try {
    // First, on a fresh server: a model that sends 100 MB where a reply of max_tokens was asked for.
    await post("/v1/ai/ask", { question: "How do we roll back the release?" });
    const before = peakRss(server.pid);
    const huge = await post("/v1/ai/ask", { question: `How do we roll back the release in ${100_000_000} bytes?` });
    emit({ bench: "server.memory.ai_reply_100mb", status: huge.status, peak_rss_mib_before: before, peak_rss_mib_after: peakRss(server.pid) });

    const a = Number(process.env.BENCH_PATTERN_A ?? 26);
    const runs = Number(process.env.BENCH_RUNS ?? 3);
    const extract = (pattern: string) => () =>
      post("/v1/ai/extract", { scope: { kind: "paths", paths: ["Reference/Runbook.md"] }, schema: { type: "array", items: { type: "string", pattern } } });
    // The same call with a harmless pattern: what the machine and the rest of the call cost.
    await probe(server.url, "server.stall.ai_pattern_control", { values: 20, a, pattern: "^a+b$", runs }, runs, extract("^a+b$"));
    await probe(server.url, "server.stall.ai_pattern", { values: 20, a, pattern: "^(a+)+$", runs }, runs, extract("^(a+)+$"));
    const ask = (bytes: number) => () => post("/v1/ai/ask", { question: `How do we roll back the release in ${bytes} bytes?`, stream: true });
    await probe(server.url, "server.stall.ai_stream_control", { answer_bytes: 5_000, pieces: 1000, runs }, runs, ask(5_000));
    await probe(server.url, "server.stall.ai_stream", { answer_bytes: 1_000_000, pieces: 1000, runs }, runs, ask(1_000_000));
  } finally {
    await server.stop();
    fake.kill();
  }
}

/**
 * Pings /health every 20 ms while `work` runs, `runs` times; the longest gap between two answers
 * (median and worst over the runs) and the work's own time (median).
 */
async function probe(url: string, bench: string, extra: Record<string, unknown>, runs: number, work: () => Promise<{ status: number; bytes: number }>) {
  const gaps: number[] = [];
  const times: number[] = [];
  let status = 0;
  for (let i = 0; i < runs; i++) {
    let running = true;
    let last = performance.now();
    let longest = 0;
    const prober = (async () => {
      while (running) {
        await (await fetch(`${url}/health`)).arrayBuffer();
        const now = performance.now();
        longest = Math.max(longest, now - last);
        last = now;
        await Bun.sleep(20);
      }
    })();
    const started = performance.now();
    status = (await work()).status;
    times.push(performance.now() - started);
    running = false;
    await prober;
    gaps.push(longest);
  }
  emit({
    bench,
    ...extra,
    status,
    work_ms_median: Math.round(median(times)),
    longest_health_gap_ms_median: round(median(gaps), 1),
    longest_health_gap_ms_max: round(Math.max(...gaps), 1),
  });
}

async function serve(bin: string, env: Record<string, string>) {
  const server = Bun.spawn([bin, "serve", "--port", "0", "--no-watch"], { env, stdout: "ignore", stderr: "pipe" });
  let url = "";
  let seen = "";
  const reader = server.stderr.getReader();
  while (!url) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += new TextDecoder().decode(value);
    url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(seen)?.[1] ?? "";
  }
  reader.releaseLock();
  if (!url) throw new Error("indx serve did not start");
  const key = Bun.spawnSync([bin, "config", "reveal-api-key"], { env }).stdout.toString().trim();
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

/** The process's peak resident memory (VmHWM), MiB; null where /proc is not there. */
function peakRss(pid: number): number | null {
  try {
    const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
    return Number.isFinite(kb) ? round(kb / 1024, 1) : null;
  } catch {
    return null;
  }
}

async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  let seen = "";
  while (!seen.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return seen.trim();
}
