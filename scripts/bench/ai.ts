#!/usr/bin/env bun
/**
 * The AI runtime's grounding and overhead (docs/contracts.md, AI runtime):
 * - on fixtures/demo-vault, a question set where each question names the note that answers it:
 *   citation precision (the cited note is the gold note) and the share of the model's citations
 *   that pass verification;
 * - on the generated 5,000-note vault (needs ../shared): ai_ask's own time per call, excluding the
 *   model's (the time inside the chat provider), and the latency of a cache hit over HTTP.
 * The model is the fake chat server unless INDX_AI_PROVIDER/INDX_AI_MODEL name a real one.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { aiAsk } from "../../src/ai/ops/ask/ask-ops.ts";
import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { invoke } from "../../src/ops/invoke.ts";
import type { ChatProvider } from "../../src/providers/types.ts";
import { Vault } from "../../src/vault/vault.ts";
import { fakeChatEnv, startFakeAiServer } from "../../test/support/fake-ai-server.ts";
import { emit, generatedVault, isolatedEnv, median, percentile, ROOT, requireShared, round, startServe } from "./common.ts";

const QUESTIONS: [string, string][] = [
  ["How do we roll back a release?", "Reference/Runbook.md"],
  ["What is the biggest risk of the Apollo launch?", "Projects/Apollo Launch.md"],
  ["What guards the new index so it can be turned off?", "Projects/Apollo Launch.md"],
  ["What must never be skipped before a deploy?", "Reference/Runbook.md"],
  ["Who was Ada Lovelace?", "People/Ada Lovelace.md"],
  ["Who is Grace Hopper?", "People/Grace Hopper.md"],
  ["What is the Beacon research about?", "Projects/Beacon Research.md"],
  ["What does the glossary say a chunk is?", "Reference/Glossary.md"],
];

const real = process.env.INDX_AI_PROVIDER && process.env.INDX_AI_MODEL;
const fake = real ? null : startFakeAiServer();
const modelEnv = fake ? fakeChatEnv(fake) : {};

/** A context whose chat provider clocks the time spent in the model. */
async function context(name: string, vault: string): Promise<{ ctx: App; modelMs: () => number; env: Record<string, string> }> {
  const env = { ...isolatedEnv(name, vault), ...modelEnv };
  rmSync(env.INDX_DATA_DIR!, { recursive: true, force: true });
  const ctx = new App(Vault.open(loadConfig({ env })));
  await ctx.updateIndex({ build: true });
  const chat: ChatProvider = ctx.ai.chat();
  const generate = chat.generate.bind(chat);
  let spent = 0;
  Object.assign(chat, {
    generate: async (req: Parameters<ChatProvider["generate"]>[0]) => {
      const t = performance.now();
      try {
        return await generate(req);
      } finally {
        spent += performance.now() - t;
      }
    },
  });
  return { ctx, env, modelMs: () => spent };
}

// 1. Grounding quality on the demo vault.
{
  const { ctx } = await context("ai-demo", join(ROOT, "fixtures", "demo-vault"));
  let cited = 0;
  let onGold = 0;
  let answered = 0;
  let proposed = 0;
  let verified = 0;
  for (const [question, gold] of QUESTIONS) {
    try {
      const out = await invoke(aiAsk, ctx, { question, cache: false, cite: false });
      const dropped = out.warnings.filter((w) => w.code === "citation_invalid" || w.code === "citation_drift").length;
      proposed += out.citations.length + dropped;
      verified += out.citations.length;
      if (out.citations.length) answered++;
      cited += out.citations.length;
      onGold += out.citations.filter((c) => c.path === gold).length;
    } catch (err) {
      emit({ bench: "ai.question_failed", question, error: (err as Error).message });
    }
  }
  emit({
    bench: "ai.grounding",
    model: real ? process.env.INDX_AI_MODEL : "fake",
    questions: QUESTIONS.length,
    answered,
    citation_precision: round(cited ? onGold / cited : 0, 3),
    verified_share: round(proposed ? verified / proposed : 0, 3),
  });
  ctx.close();
}

// 2. Overhead and cache hits at 5,000 notes.
if (requireShared("ai overhead")) {
  const vault = generatedVault(Number(process.env.BENCH_N ?? 5000), 42);
  const queries = (await Bun.file(join(vault, ".bench", "queries.txt")).text()).split("\n").filter(Boolean).slice(0, 20);
  const { ctx, env, modelMs } = await context("ai-overhead", vault);
  const overhead: number[] = [];
  // One warm-up, then each question once: a repeated question would reuse its retrieval.
  await invoke(aiAsk, ctx, { question: "warm up the index and the model", cache: false, cite: false });
  for (const q of queries) {
    const before = modelMs();
    const t = performance.now();
    await invoke(aiAsk, ctx, { question: q, cache: false, cite: false });
    overhead.push(performance.now() - t - (modelMs() - before));
  }
  emit({
    bench: "ai.ask_overhead",
    notes: Number(process.env.BENCH_N ?? 5000),
    median_ms: round(median(overhead), 2),
    p90_ms: round(percentile(overhead, 90), 2),
  });
  ctx.close();

  const served = await startServe(env);
  try {
    const hits: number[] = [];
    for (const q of queries) {
      const body = JSON.stringify({ question: q, cite: false });
      const post = () =>
        fetch(`${served.url}/v1/ai/ask`, { method: "POST", headers: { authorization: `Bearer ${served.key}`, "content-type": "application/json" }, body }).then(
          (r) => r.text(),
        );
      await post();
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        await post();
        times.push(performance.now() - t);
      }
      hits.push(median(times));
    }
    emit({ bench: "ai.cache_hit_http", median_ms: round(median(hits), 2), p90_ms: round(percentile(hits, 90), 2) });
  } finally {
    await served.stop();
  }
}
fake?.stop();
