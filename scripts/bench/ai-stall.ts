/**
 * Does the server keep answering while an AI call does work that grows with the model's reply?
 * (docs/decisions.md, "AI replies that cannot block the server"). `dist/indx serve` (or
 * BENCH_BIN) on a copy of the demo vault, with its chat model on the fake AI server; a prober
 * asks /health every 20 ms and the longest gap between two answers is reported:
 * - server.stall.ai_pattern: ai_extract with an items pattern `^(a+)+$` and a model that answers
 *   20 values of BENCH_PATTERN_A (26) a's and a b: 2^26 steps each in a backtracking engine;
 * - server.stall.ai_stream: ai_ask streamed over SSE while the model writes a 1 MB answer in
 *   1,000 pieces.
 * Run from scripts/bench/responsiveness.ts (BENCH_PARTS=ai for only these).
 */
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { startFakeAiServer } from "../../test/support/fake-ai-server.ts";
import { BIN, emit, isolatedEnv, outDir, round } from "./common.ts";

export async function aiStalls(): Promise<void> {
  const bin = process.env.BENCH_BIN ?? BIN;
  const vault = join(outDir("ai-stall"), "vault");
  rmSync(vault, { recursive: true, force: true });
  cpSync(join(import.meta.dir, "..", "..", "fixtures", "demo-vault"), vault, { recursive: true });
  const fake = startFakeAiServer();
  const env: Record<string, string> = {
    ...isolatedEnv("ai-stall", vault),
    INDX_AI_PROVIDER: "ollama",
    INDX_AI_MODEL: "fake-chat",
    INDX_OLLAMA_URL: fake.url,
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
    const a = Number(process.env.BENCH_PATTERN_A ?? 26);
    fake.onChat(() => ({ content: { data: Array.from({ length: 20 }, () => `${"a".repeat(a)}b`), confidence: 0.9, citations: [] } }));
    await probe(server.url, "server.stall.ai_pattern", { values: 20, a }, () =>
      post("/v1/ai/extract", {
        scope: { kind: "paths", paths: ["Reference/Runbook.md"] },
        schema: { type: "array", items: { type: "string", pattern: "^(a+)+$" } },
      }),
    );

    const answer = "word ".repeat(200_000);
    fake.onChat(() => ({ content: { answer, supported: false, confidence: "low", citations: [], followups: [] }, chunks: 1000 }));
    await probe(server.url, "server.stall.ai_stream", { answer_bytes: answer.length, pieces: 1000 }, () =>
      post("/v1/ai/ask", { question: "How do we roll back the release?", stream: true, max_tokens: 2048 }),
    );
  } finally {
    await server.stop();
    fake.stop();
  }
}

/** Pings /health every 20 ms while `work` runs; the longest gap between two answers, and the work's own time. */
async function probe(url: string, bench: string, extra: Record<string, unknown>, work: () => Promise<{ status: number; bytes: number }>) {
  let running = true;
  let last = performance.now();
  let longest = 0;
  let probes = 0;
  const prober = (async () => {
    while (running) {
      await (await fetch(`${url}/health`)).arrayBuffer();
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      probes++;
      await Bun.sleep(20);
    }
  })();
  const started = performance.now();
  const done = await work();
  const workMs = performance.now() - started;
  running = false;
  await prober;
  emit({ bench, ...extra, status: done.status, work_ms: Math.round(workMs), probes, longest_health_gap_ms: round(longest, 1) });
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
    async stop() {
      server.kill();
      await server.exited;
    },
  };
}
