#!/usr/bin/env bun
/**
 * Known-item search: every note's title, and apart from that each of its aliases, is searched
 * (lexical, limit 10) and the rank of that note is read: MRR@10 and top-1 per vault. A title that
 * several notes share is found when any of them is (it names them all). Vaults: fixtures/kepano,
 * fixtures/demo-vault, a generated vault (knownItemVault: long notes titled with common words,
 * many short notes that mention those words; BENCH_KNOWN_N notes, default 2,000), the
 * 2,000-note vault of ../shared/tools/corpus-gen.ts, and every vault under ../shared/corpora
 * (held out: never looked at while changing ranking). Also prints, per vault, the share of hits
 * with an empty snippet among hits whose note has text (`empty_snippets`), over the title queries
 * and, on the corpus-gen vault, over its own query list.
 */
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { invoke } from "../../src/ops/invoke.ts";
import { vaultSearch } from "../../src/search/ops.ts";
import { Vault } from "../../src/vault/vault.ts";
import { emit, generatedVault, isolatedEnv, OUT, ROOT, round, SHARED } from "./common.ts";

const COMMON =
  "canvas settings search bases syntax project meeting review daily weekly plugin theme graph link note vault sync publish template " +
  "task calendar journal book reading idea garden writing research people contact travel recipe workout habit budget finance work " +
  "home music film photo design code editor format property tag folder archive inbox index home query filter table view embed " +
  "backlink outline workspace hotkey command palette file attachment image audio video pdf export import markdown callout";
const FILLER =
  "the a of and to in is that for it with as on was by this be are from or at an which have has not can will more about " +
  "some their other when into also most than then them these would could there what time people way make like just over " +
  "only new first after use two any well because very through back even good much before being same where right still " +
  "long own under never last another while might between always something often thing part place small great large early " +
  "able point simple clear quick open close change keep start move carry follow build";

interface Hit {
  path: string;
  snippet: string;
}

const vaults: { name: string; dir: string; queries?: string[] }[] = [
  { name: "kepano", dir: join(ROOT, "fixtures", "kepano") },
  { name: "demo-vault", dir: join(ROOT, "fixtures", "demo-vault") },
  { name: "generated", dir: knownItemVault(Number(process.env.BENCH_KNOWN_N ?? 2000), 7) },
];
if (existsSync(join(SHARED, "tools", "corpus-gen.ts"))) {
  const dir = generatedVault(2000, 42);
  const queries = readFileSync(join(dir, ".bench", "queries.txt"), "utf8")
    .split("\n")
    .filter(Boolean);
  vaults.push({ name: "corpus-gen-2000", dir, queries });
}
const corpora = join(SHARED, "corpora");
if (existsSync(corpora)) {
  for (const entry of readdirSync(corpora, { withFileTypes: true }))
    if (entry.isDirectory() && hasNotes(join(corpora, entry.name))) vaults.push({ name: `corpora/${entry.name}`, dir: join(corpora, entry.name) });
} else emit({ bench: "known_item.corpora", skipped: "../shared/corpora is absent: no held-out vaults" });

for (const v of vaults) await measure(v.name, v.dir, v.queries);

async function measure(name: string, dir: string, extraQueries?: string[]) {
  const env = isolatedEnv(`known-${name.replaceAll("/", "-")}`, dir);
  rmSync(env.INDX_DATA_DIR!, { recursive: true, force: true });
  const ctx = new App(Vault.open(loadConfig({ env })));
  await ctx.updateIndex({ build: true });
  const db = new Database(ctx.vault.indexPath, { readonly: true });
  const notes = db
    .query<{ path: string; title: string; aliases: string; hasText: number }, []>(
      "SELECT f.path, n.title, n.aliases, EXISTS (SELECT 1 FROM chunks c WHERE c.file_id = n.file_id) AS hasText FROM files f JOIN notes n ON n.file_id = f.id WHERE n.status = 'ok'",
    )
    .all();
  db.close();
  const withText = new Set(notes.filter((n) => n.hasText).map((n) => n.path));
  const byTitle = groupBy(notes.map((n) => [n.title.trim(), n.path]));
  const byAlias = groupBy(
    notes.flatMap((n) => (JSON.parse(n.aliases) as unknown[]).filter((a): a is string => typeof a === "string").map((a) => [a.trim(), n.path])),
  );
  const snippets = { hits: 0, empty: 0 };
  const search = async (q: string): Promise<Hit[]> => {
    const out = (await invoke(vaultSearch, ctx, { q, mode: "lexical", limit: 10 })) as { results: Hit[] };
    for (const r of out.results) {
      if (!withText.has(r.path)) continue;
      snippets.hits++;
      if (!r.snippet) snippets.empty++;
    }
    return out.results;
  };
  const score = async (groups: Map<string, Set<string>>) => {
    let rr = 0;
    let top1 = 0;
    let n = 0;
    for (const [q, paths] of groups) {
      if (!q) continue;
      n++;
      const at = (await search(q)).findIndex((r) => paths.has(r.path));
      if (at === 0) top1++;
      if (at >= 0) rr += 1 / (at + 1);
    }
    return { queries: n, mrr_at_10: n ? round(rr / n, 4) : null, top1: n ? round(top1 / n, 4) : null };
  };
  const titles = await score(byTitle);
  const titleSnippets = { ...snippets };
  const aliases = await score(byAlias);
  emit({ bench: `known_item.${name}`, notes: notes.length, titles, aliases, empty_snippets: share(titleSnippets) });
  if (extraQueries?.length) {
    snippets.hits = 0;
    snippets.empty = 0;
    for (const q of extraQueries) await search(q);
    emit({ bench: `known_item.${name}.own_queries`, queries: extraQueries.length, empty_snippets: share(snippets) });
  }
  ctx.close();
}

function share(s: { hits: number; empty: number }) {
  return { hits: s.hits, empty: s.empty, share: s.hits ? round(s.empty / s.hits, 4) : null };
}

function groupBy(pairs: string[][]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [key, path] of pairs) {
    if (!out.has(key!)) out.set(key!, new Set());
    out.get(key!)!.add(path!);
  }
  return out;
}

function hasNotes(dir: string): boolean {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).some((f) => f.endsWith(".md"));
}

/**
 * A vault shaped like a real one where known-item search is hard: a tenth of the notes are long
 * (a few thousand words, a title word in a hundred) and titled with one to four common words
 * ("Search", "Weekly review", "How to sync canvas"), some with aliases; the rest are short notes
 * (10–80 words) titled with a common word and two others ("Canvas quick build") that mention a
 * long note's title words, as plugin or daily notes mention a documentation page's topic.
 * Deterministic for a given size and seed.
 */
function knownItemVault(n: number, seed: number): string {
  const dir = join(OUT, `known-item-${n}-${seed}`);
  if (existsSync(join(dir, ".done"))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "notes"), { recursive: true });
  let s = seed >>> 0;
  const rand = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const common = COMMON.split(" ");
  const filler = FILLER.split(" ");
  const content = filler.filter((w) => w.length > 3);
  /** Words of `len`, `rate` of them a topic word, then common and filler words. */
  const sentence = (topic: string[], len: number, rate: number) => {
    const words: string[] = [];
    for (let i = 0; i < len; i++) words.push(rand() < rate ? pick(topic) : rand() < 0.3 ? pick(common) : pick(filler));
    const text = words.join(" ");
    return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
  };
  const topics: string[] = [];
  const used = new Set<string>();
  const topicCount = Math.max(10, Math.floor(n / 10));
  while (topics.length < topicCount) {
    const r = rand();
    const words = r < 0.45 ? [pick(common)] : r < 0.85 ? [pick(common), pick(common)] : ["how", "to", pick(common), pick(common)];
    const title = words.join(" ").replace(/^./, (c) => c.toUpperCase());
    if (used.has(title.toLowerCase()) || new Set(words).size < words.length) continue;
    used.add(title.toLowerCase());
    topics.push(title);
  }
  for (const title of topics) {
    const words = title.toLowerCase().split(" ");
    const aliases = rand() < 0.3 ? [`${pick(common)} ${words[words.length - 1]}`, `${title} guide`] : [];
    const sections: string[] = [];
    const count = 4 + Math.floor(rand() * 10);
    for (let k = 0; k < count; k++) {
      const paras = Array.from({ length: 2 + Math.floor(rand() * 3) }, () =>
        Array.from({ length: 4 + Math.floor(rand() * 5) }, () => sentence(words, 10 + Math.floor(rand() * 15), 0.01)).join(" "),
      );
      sections.push(`## ${pick(common)} ${pick(filler)}\n\n${paras.join("\n\n")}`);
    }
    const fm = aliases.length ? `---\naliases:\n${aliases.map((a) => `  - ${a}`).join("\n")}\n---\n` : "";
    writeFileSync(join(dir, `${title}.md`), `${fm}# ${title}\n\n${sentence(words, 20, 0.1)}\n\n${sections.join("\n\n")}\n`);
  }
  for (let i = 0; i < n - topics.length; i++) {
    const topic = pick(topics).toLowerCase().split(" ");
    // Titles of their own, often with a common word in them ("Canvas quick build"), some repeated.
    let title = `${pick(common)} ${pick(content)} ${pick(content)}`.replace(/^./, (c) => c.toUpperCase());
    if (used.has(title.toLowerCase())) title = `${title} ${i}`;
    used.add(title.toLowerCase());
    const body = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => sentence(topic, 8 + Math.floor(rand() * 20), 0.06)).join(" ");
    const tags = rand() < 0.3 ? `\ntags: [${pick(common)}]` : "";
    writeFileSync(join(dir, "notes", `${title}.md`), `---\ncreated: 2024-0${1 + Math.floor(rand() * 9)}-1${Math.floor(rand() * 10)}${tags}\n---\n${body}\n`);
  }
  writeFileSync(join(dir, ".done"), "");
  return dir;
}
