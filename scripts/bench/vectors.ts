#!/usr/bin/env bun
/**
 * Vector and hybrid search latency on 20,000 chunks of dimension 768 (target: ≤ 20 ms median in
 * process). A synthetic vault of 2,000 notes × 10 chunks (an H1 and 9 sections) is indexed and embedded (through the
 * fake server unless the environment names a provider; the first run is cached in .bench-out),
 * then 200 queries are timed:
 * - vector: the KNN alone, grouped to notes, query vector given — warm (serve and MCP: the vectors
 *   in memory, an exact SIMD scan) and cold (a one-shot CLI: sqlite-vec's int8 KNN + exact rescoring);
 * - semantic / hybrid: the whole vault_search operation in process, query embedding included
 *   (the fake answers in about a millisecond; a real model adds its own embedding time).
 */
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { loadVec } from "../../src/index/storage/sqlite-vec.ts";
import { VectorStorage } from "../../src/index/storage/vectors.ts";
import { vaultReindex } from "../../src/maintenance/ops.ts";
import { invoke } from "../../src/ops/invoke.ts";
import { vaultSearch } from "../../src/search/ops.ts";
import { semanticPage, vectorChunks } from "../../src/search/semantic.ts";
import { Vault } from "../../src/vault/vault.ts";
import { fakeEmbedding } from "../../test/support/fake-ai-server.ts";
import { emit, isolatedEnv, median, outDir, percentile, round } from "./common.ts";
import { benchProvider } from "./embed-provider.ts";

const NOTES = 2000;
const SECTIONS = 9; // + the H1 chunk of each note: 20,000 chunks
const QUERIES = 200;

// A deterministic vocabulary and word stream (xorshift), so every run measures the same vault.
let seed = 42;
const rand = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return ((seed >>> 0) % 1_000_000) / 1_000_000;
};
const syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "po", "an", "el", "or", "us", "ith", "ban", "cor", "dul", "fen", "gar"];
const vocab = Array.from({ length: 6000 }, () =>
  Array.from({ length: 2 + Math.floor(rand() * 3) }, () => syllables[Math.floor(rand() * syllables.length)]).join(""),
);
// Zipf-ish: topic words are frequent within a note, background words everywhere.
const word = (topic: number) =>
  rand() < 0.35 ? vocab[(topic * 37 + Math.floor(rand() * 40)) % vocab.length]! : vocab[Math.floor(rand() ** 2 * vocab.length)]!;
const sentence = (topic: number, n: number) => Array.from({ length: n }, () => word(topic)).join(" ");

const vaultDir = join(outDir("vectors"), "vault");
if (!existsSync(join(vaultDir, ".done"))) {
  rmSync(vaultDir, { recursive: true, force: true });
  mkdirSync(vaultDir, { recursive: true });
  for (let i = 0; i < NOTES; i++) {
    const topic = Math.floor(rand() * 500);
    const parts = [`# Note ${i}\n`];
    for (let s = 0; s < SECTIONS; s++) parts.push(`## ${sentence(topic, 3)}\n\n${sentence(topic, 70)}.\n`);
    mkdirSync(join(vaultDir, `d${i % 20}`), { recursive: true });
    writeFileSync(join(vaultDir, `d${i % 20}`, `n${i}.md`), parts.join("\n"));
  }
  writeFileSync(join(vaultDir, ".done"), "");
}

const provider = await benchProvider("fake-embed-768");
const env = { ...isolatedEnv(`vectors-${provider.label.replace(/\W+/g, "-")}`, vaultDir), ...provider.env };
const ctx = new App(Vault.open(loadConfig({ env })));
const t0 = performance.now();
const report = (await invoke(vaultReindex, ctx, {})) as { embeddings: { chunks: number; embedded: number; requests: number; dimension: number } | null };
const buildMs = performance.now() - t0;
const svc = ctx.embeddings;
const store = svc.vectors(false);
if (!store || !report.embeddings) {
  emit({ bench: "vectors", skipped: "embedding failed", report });
  process.exit(1);
}
const chunks = report.embeddings.chunks;
const dim = store.identity()!.dim;
emit({ bench: "vectors.setup", provider: provider.label, chunks, dimension: dim, embedded_now: report.embeddings.embedded, setup_ms: round(buildMs, 0) });

const queries = Array.from({ length: QUERIES }, (_, i) => sentence(Math.floor(rand() * 500), 4 + (i % 5)));
const index = ctx.index;

// 1. The KNN alone, the query vector given (fake vectors of the right size; a real provider's
//    query vectors are made once, outside the timing).
const qvecs = provider.fake
  ? queries.map((q) => fakeEmbedding(q, dim))
  : await Promise.all(queries.map((q) => svc.embedQuery(svc.settings()!, q).then((v) => Array.from(v))));
const knnTimes = () => {
  const times: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const t = performance.now();
    const list = vectorChunks(index, store, qvecs[i]!, { limit: 50, allowed: null, distinctNotes: 11 });
    semanticPage(list, 0, 10);
    times.push(performance.now() - t);
  }
  return times;
};
const coldTimes = knnTimes();
// From here on, as in serve and MCP: the vectors stay in memory.
store.keepWarm = true;
const tLoad = performance.now();
store.nearest(qvecs[0]!, 1);
const loadMs = performance.now() - tLoad;
const vecTimes = knnTimes();
// Recall of the coarse KNN against an exact scan (the top 10 chunks).
let found = 0;
const exactDb = new Database(VectorStorage.pathFor(ctx.vault.dataDir), { readonly: true });
loadVec(exactDb);
for (let i = 0; i < 50; i++) {
  const q = new Uint8Array(new Float32Array(qvecs[i]!).buffer);
  const exact = exactDb
    .query<{ hash: string }, [Uint8Array]>("SELECT hash FROM embeddings ORDER BY vec_distance_cosine(vector, ?1) LIMIT 10")
    .values(q)
    .map((r) => r[0] as string);
  const got = new Set(store.nearest(qvecs[i]!, 10).map((h) => h.hash));
  found += exact.filter((h) => got.has(h)).length;
}
exactDb.close();
const recall = round(found / 500, 3);
emit({
  bench: "vectors.knn_cold",
  path: "sqlite-vec int8 KNN + exact rescoring (one-shot CLI)",
  chunks,
  dimension: dim,
  k_notes: 10,
  p50_ms: round(median(coldTimes)),
  p95_ms: round(percentile(coldTimes, 95)),
});
emit({
  bench: "vectors.knn",
  path: "in-memory exact SIMD scan (serve, MCP)",
  load_ms: round(loadMs, 0),
  recall_at_10_vs_exact: recall,
  chunks,
  dimension: dim,
  k_notes: 10,
  p50_ms: round(median(vecTimes)),
  p95_ms: round(percentile(vecTimes, 95)),
  target_p50_ms: 20,
});

// 2. The operations, in process (query embedding included; warm-up first).
for (const mode of ["semantic", "hybrid"] as const) {
  await invoke(vaultSearch, ctx, { q: "warm up", mode });
  const times: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    const out = (await invoke(vaultSearch, ctx, { q, mode, limit: 10 })) as { mode_used: string };
    times.push(performance.now() - t);
    if (out.mode_used !== mode) throw new Error(`expected ${mode}, got ${out.mode_used}`);
  }
  emit({
    bench: `vectors.search_${mode}`,
    provider: provider.label,
    chunks,
    dimension: dim,
    limit: 10,
    p50_ms: round(median(times)),
    p95_ms: round(percentile(times, 95)),
  });
}
ctx.close();
svc.close();
provider.stop();
