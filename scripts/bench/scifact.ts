#!/usr/bin/env bun
/**
 * Retrieval quality on BEIR SciFact (read from ../shared/bench/scifact, never copied): every
 * abstract becomes a note (title in frontmatter and as its H1, then the text), the 300 test claims
 * are searched (limit 100) in each mode — lexical, semantic, hybrid, auto (and hybrid reranked when
 * INDX_BENCH_RERANK=1 and a chat model is configured) — and nDCG@10 (linear gain, as
 * pytrec_eval) and Recall@100 are printed, one JSON line per mode. The embeddings provider comes
 * from the environment (a real Ollama where one is reachable), BENCH_EMBEDDINGS=use for a real model
 * that runs offline (scripts/bench/use-shim.ts), else the fake server of the tests,
 * whose semantic figures are only a smoke test. Embedding throughput (chunks/s, requests per
 * chunk) is printed too. BENCH_MODES=lexical measures the lexical mode alone, without embedding.
 * The lexical line also gives nDCG@10 on the even- and odd-numbered claims apart, and a second
 * line (`scifact.titles`) a check no claim was read for: each abstract, indexed without its
 * title, searched by its title (MRR@10 and Recall@100 of the abstract itself).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { vaultReindex, vaultStatus } from "../../src/maintenance/ops.ts";
import { invoke } from "../../src/ops/invoke.ts";
import { vaultSearch } from "../../src/search/ops.ts";
import { Vault } from "../../src/vault/vault.ts";
import { emit, isolatedEnv, outDir, requireShared, round, SHARED } from "./common.ts";
import { benchProvider } from "./embed-provider.ts";

if (!requireShared("scifact")) process.exit(0);
const dir = join(SHARED, "bench", "scifact");
if (!existsSync(join(dir, "corpus.jsonl"))) {
  emit({ bench: "scifact", skipped: "../shared/bench/scifact is missing" });
  process.exit(0);
}

const corpus = readFileSync(join(dir, "corpus.jsonl"), "utf8")
  .split("\n")
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line) as { _id: string; title: string; text: string });
const vaultDir = join(outDir("scifact"), "vault");
if (!existsSync(join(vaultDir, ".done"))) {
  rmSync(vaultDir, { recursive: true, force: true });
  mkdirSync(vaultDir, { recursive: true });
  for (const doc of corpus) {
    const title = doc.title.replaceAll('"', "'");
    writeFileSync(join(vaultDir, `${doc._id}.md`), `---\ntitle: "${title}"\n---\n# ${doc.title}\n\n${doc.text}\n`);
  }
  writeFileSync(join(vaultDir, ".done"), "");
}

const qrels = new Map<string, Map<string, number>>();
for (const line of readFileSync(join(dir, "qrels", "test.tsv"), "utf8")
  .split("\n")
  .slice(1)) {
  const [q, d, s] = line.split("\t");
  if (!q || !d) continue;
  if (!qrels.has(q)) qrels.set(q, new Map());
  qrels.get(q)!.set(d, Number(s));
}
const queries = readFileSync(join(dir, "queries.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { _id: string; text: string })
  .filter((q) => qrels.has(q._id));

const lexicalOnly = process.env.BENCH_MODES === "lexical";
const provider = lexicalOnly ? { env: {}, label: "none", stop() {} } : await benchProvider();
const env = { ...isolatedEnv("scifact", vaultDir), ...provider.env };
rmSync(env.INDX_DATA_DIR!, { recursive: true, force: true });
const ctx = new App(Vault.open(loadConfig({ env })));
const t = performance.now();
await ctx.updateIndex({ build: true });
const buildMs = performance.now() - t;

await evaluate("lexical");
await titlesFindAbstracts();
if (lexicalOnly) {
  ctx.close();
  process.exit(0);
}

// Embedding: the whole corpus, timed apart from the lexical index.
const te = performance.now();
const report = (await invoke(vaultReindex, ctx, {})) as { embeddings: { embedded: number; requests: number; chunks: number; error: unknown } | null };
const embedMs = performance.now() - te;
const emb = report.embeddings;
emit({
  bench: "embeddings.throughput",
  provider: provider.label,
  chunks: emb?.chunks ?? 0,
  embedded: emb?.embedded ?? 0,
  requests: emb?.requests ?? 0,
  requests_per_chunk: emb?.embedded ? round(emb.requests / emb.embedded, 4) : null,
  chunks_per_s: emb?.embedded ? round(emb.embedded / (embedMs / 1000), 0) : null,
  embed_ms: round(embedMs, 0),
  error: emb?.error ?? null,
});

async function evaluate(mode: string, extra: Record<string, unknown> = {}) {
  const ndcgs: number[] = [];
  let recallSum = 0;
  let used = "";
  const warnings = new Set<string>();
  const started = performance.now();
  for (const q of queries) {
    const rel = qrels.get(q._id)!;
    const out = (await invoke(vaultSearch, ctx, { q: q.text, mode, limit: 100, ...extra })) as {
      results: { path: string }[];
      mode_used: string;
      warnings: { code: string }[];
    };
    used = out.mode_used;
    for (const w of out.warnings) warnings.add(w.code);
    const ranked = out.results.map((r) => r.path.replace(/\.md$/, ""));
    let dcg = 0;
    for (const [i, id] of ranked.slice(0, 10).entries()) dcg += (rel.get(id) ?? 0) / Math.log2(i + 2);
    const ideal = [...rel.values()].sort((a, b) => b - a).slice(0, 10);
    const idcg = ideal.reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
    ndcgs.push(idcg ? dcg / idcg : 0);
    const relevant = [...rel.entries()].filter(([, g]) => g > 0).map(([id]) => id);
    recallSum += relevant.filter((id) => ranked.includes(id)).length / relevant.length;
  }
  emit({
    bench: `scifact.${mode}${extra.rerank ? "+rerank" : ""}`,
    provider: mode === "lexical" ? null : provider.label,
    mode_used: used,
    queries: queries.length,
    ndcg_at_10: round(mean(ndcgs), 4),
    ndcg_at_10_even_odd: [round(mean(ndcgs.filter((_, i) => i % 2 === 0)), 4), round(mean(ndcgs.filter((_, i) => i % 2 === 1)), 4)],
    recall_at_100: round(recallSum / queries.length, 4),
    ...(mode === "lexical" ? { index_ms: round(buildMs, 0) } : {}),
    query_ms_avg: round((performance.now() - started) / queries.length, 2),
    ...(warnings.size ? { warnings: [...warnings] } : {}),
  });
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Known-item search over the abstracts alone: the query is the title, the answer its own abstract. */
async function titlesFindAbstracts() {
  const bodiesDir = join(outDir("scifact"), "abstracts");
  if (!existsSync(join(bodiesDir, ".done"))) {
    rmSync(bodiesDir, { recursive: true, force: true });
    mkdirSync(bodiesDir, { recursive: true });
    for (const doc of corpus) writeFileSync(join(bodiesDir, `${doc._id}.md`), `${doc.text}\n`);
    writeFileSync(join(bodiesDir, ".done"), "");
  }
  const bodiesEnv = isolatedEnv("scifact-abstracts", bodiesDir);
  rmSync(bodiesEnv.INDX_DATA_DIR!, { recursive: true, force: true });
  const bodies = new App(Vault.open(loadConfig({ env: bodiesEnv })));
  await bodies.updateIndex({ build: true });
  let rr = 0;
  let found = 0;
  for (const doc of corpus) {
    const out = (await invoke(vaultSearch, bodies, { q: doc.title, mode: "lexical", limit: 100 })) as { results: { path: string }[] };
    const at = out.results.findIndex((r) => r.path === `${doc._id}.md`);
    if (at >= 0) found++;
    if (at >= 0 && at < 10) rr += 1 / (at + 1);
  }
  bodies.close();
  emit({ bench: "scifact.titles", queries: corpus.length, mrr_at_10: round(rr / corpus.length, 4), recall_at_100: round(found / corpus.length, 4) });
}

if (emb && emb.embedded > 0) {
  await evaluate("semantic");
  await evaluate("hybrid");
  // auto: the vector list at the weight measured on the vault (vault_status shows why).
  const status = (await invoke(vaultStatus, ctx, { probe: false })) as { embeddings: { fusion?: unknown } };
  emit({ bench: "scifact.fusion", provider: provider.label, fusion: status.embeddings.fusion ?? null });
  await evaluate("auto");
  if (process.env.INDX_BENCH_RERANK === "1") await evaluate("hybrid", { rerank: true });
}
ctx.close();
provider.stop();
