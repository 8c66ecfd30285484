#!/usr/bin/env bun
/**
 * Retrieval quality on BEIR SciFact (read from ../shared/bench/scifact, never copied): every
 * abstract becomes a note (title in frontmatter and as its H1, then the text), the 300 test claims
 * are searched lexically (limit 100), and nDCG@10 (linear gain, as pytrec_eval) and Recall@100 are
 * printed.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { OpContext } from "../../src/ops/context.ts";
import { invoke } from "../../src/ops/invoke.ts";
import { vaultSearch } from "../../src/search/ops.ts";
import { Vault } from "../../src/vault/vault.ts";
import { emit, isolatedEnv, outDir, requireShared, round, SHARED } from "./common.ts";

if (!requireShared("scifact")) process.exit(0);
const dir = join(SHARED, "bench", "scifact");
if (!existsSync(join(dir, "corpus.jsonl"))) {
  emit({ bench: "scifact", skipped: "../shared/bench/scifact is missing" });
  process.exit(0);
}

const vaultDir = join(outDir("scifact"), "vault");
if (!existsSync(join(vaultDir, ".done"))) {
  rmSync(vaultDir, { recursive: true, force: true });
  mkdirSync(vaultDir, { recursive: true });
  for (const line of readFileSync(join(dir, "corpus.jsonl"), "utf8").split("\n")) {
    if (!line.trim()) continue;
    const doc = JSON.parse(line) as { _id: string; title: string; text: string };
    const title = doc.title.replaceAll('"', "'");
    writeFileSync(join(vaultDir, `${doc._id}.md`), `---\ntitle: "${title}"\n---\n# ${doc.title}\n\n${doc.text}\n`);
  }
  writeFileSync(join(vaultDir, ".done"), "");
}

const qrels = new Map<string, Map<string, number>>();
for (const line of readFileSync(join(dir, "qrels", "test.tsv"), "utf8").split("\n").slice(1)) {
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

const env = isolatedEnv("scifact", vaultDir);
rmSync(env.INDX_DATA_DIR!, { recursive: true, force: true });
const ctx = new OpContext(Vault.open(loadConfig({ env })));
const t = performance.now();
ctx.reindex();
const buildMs = performance.now() - t;

let ndcgSum = 0;
let recallSum = 0;
const started = performance.now();
for (const q of queries) {
  const rel = qrels.get(q._id)!;
  const out = (await invoke(vaultSearch, ctx, { q: q.text, mode: "lexical", limit: 100 })) as { results: { path: string }[] };
  const ranked = out.results.map((r) => r.path.replace(/\.md$/, ""));
  let dcg = 0;
  ranked.slice(0, 10).forEach((id, i) => (dcg += (rel.get(id) ?? 0) / Math.log2(i + 2)));
  const ideal = [...rel.values()].sort((a, b) => b - a).slice(0, 10);
  const idcg = ideal.reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  ndcgSum += idcg ? dcg / idcg : 0;
  const relevant = [...rel.entries()].filter(([, g]) => g > 0).map(([id]) => id);
  recallSum += relevant.filter((id) => ranked.includes(id)).length / relevant.length;
}
emit({
  bench: "scifact.lexical",
  queries: queries.length,
  ndcg_at_10: round(ndcgSum / queries.length, 4),
  recall_at_100: round(recallSum / queries.length, 4),
  index_ms: round(buildMs, 0),
  query_ms_avg: round((performance.now() - started) / queries.length, 2),
});
ctx.close();
