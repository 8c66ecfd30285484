import { Database } from "bun:sqlite";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import type { IndxError } from "../../src/core/errors.ts";
import { VectorStore } from "../../src/embeddings/store.ts";
import { vaultReindex, vaultStatus } from "../../src/maintenance/ops.ts";
import type { OpContext } from "../../src/ops/context.ts";
import { related, vaultSearch } from "../../src/search/ops.ts";
import { Vault } from "../../src/vault/vault.ts";
import { type FakeAiServer, fakeEnv, startFakeAiServer } from "../support/fake-ai-server.ts";
import { invoke } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

const NOTES: Record<string, string> = {
  "Gardening/Tomatoes.md":
    "# Tomatoes\n\nTomato plants need sunlight, warm soil and regular watering. Prune the suckers so the plant grows larger fruit and ripens before autumn.\n\n## Pests\n\nAphids and hornworms attack tomato leaves; neem oil and handpicking keep them away from the garden.\n",
  "Cooking/Bread.md":
    "# Sourdough bread\n\nA sourdough starter ferments flour and water for days. Knead the dough, let it proof overnight in the fridge, then bake it in a very hot oven.\n\n## Crust\n\nSteam in the oven during the first minutes gives a crisp, shiny crust on the loaf.\n",
  "Tech/Databases.md":
    "# Databases\n\nSQLite stores every table in one file, and indexes speed up queries. Write-ahead logging lets readers continue while a writer commits.\n\n## Backups\n\nCopy the database file while no writer is active, or use the online backup API.\n",
  "Travel/Japan.md":
    "# Japan trip\n\nKyoto temples in the morning, Tokyo trains in the evening, and hot onsen baths in the mountains. Book the rail pass before departure.\n",
};
const CHUNKS = 7;

let fake: FakeAiServer;
const open: { sb: Sandbox; ctxs: App[] }[] = [];

beforeAll(() => {
  fake = startFakeAiServer();
});
afterAll(() => fake.stop());
afterEach(() => {
  for (const o of open.splice(0)) {
    for (const c of o.ctxs) c.close();
    o.sb.cleanup();
  }
  fake.reset();
});

/** A sandbox vault and a factory of contexts whose config points at the fake (or anywhere). */
function setup(extraEnv: Record<string, string> = {}, files = NOTES) {
  const sb = sandbox(files);
  const entry = { sb, ctxs: [] as App[] };
  open.push(entry);
  const ctx = (env: Record<string, string> = {}) => {
    // These tests are about availability and fallbacks: the vectors count evenly unless a test measures them.
    const even = { INDX_SEARCH_VECTOR_WEIGHT: "1" };
    const c = new App(Vault.open(loadConfig({ env: { ...sb.env, ...fakeEnv(fake, "ollama", "fake-embed-128"), ...even, ...extraEnv, ...env } })));
    c.embeddings.backoffMs = 1;
    entry.ctxs.push(c);
    return c;
  };
  return { sb, ctx };
}

const reindex = (ctx: OpContext, input: Record<string, unknown> = {}) => invoke(vaultReindex, ctx, input) as Promise<any>;
const search = (ctx: OpContext, input: Record<string, unknown>) => invoke(vaultSearch, ctx, input) as Promise<any>;
async function rejects(p: Promise<unknown>): Promise<IndxError> {
  try {
    await p;
  } catch (err) {
    return err as IndxError;
  }
  throw new Error("expected a rejection");
}

/** A URL where nothing listens: a fake that was started and stopped. */
function deadUrl(): string {
  const f = startFakeAiServer();
  f.stop();
  return f.url;
}

describe("embedding the vault", () => {
  test("vault index embeds every chunk in batches and reports it", async () => {
    const { ctx } = setup();
    const r = await reindex(ctx());
    expect(r.embeddings).toMatchObject({
      provider: "ollama",
      model: "fake-embed-128",
      dimension: 128,
      chunks: CHUNKS,
      embedded: CHUNKS,
      pending: 0,
      error: null,
    });
    expect(fake.embedRequests().every((q) => q.path === "/api/embed")).toBe(true);
    expect(r.warnings).toEqual([]);
  });

  test("a second pass sends nothing; editing one section embeds only that chunk", async () => {
    const { sb, ctx } = setup();
    await reindex(ctx());
    fake.reset();
    expect((await reindex(ctx())).embeddings).toMatchObject({ embedded: 0, reused: CHUNKS });
    expect(fake.embedRequests()).toHaveLength(0);

    sb.write("Tech/Databases.md", NOTES["Tech/Databases.md"]!.replace("online backup API", "online backup API or VACUUM INTO"));
    const r = await reindex(ctx());
    expect(r.embeddings).toMatchObject({ embedded: 1, reused: CHUNKS - 1 });
    const sent = fake.embeddedTexts();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain("VACUUM INTO");
    expect(sent[0]).toContain("Backups"); // the heading path is part of the embedded text
  });

  test("renaming a note embeds nothing, and search finds it under its new path", async () => {
    const { sb, ctx } = setup();
    await reindex(ctx());
    fake.reset();
    renameSync(join(sb.vault, "Travel/Japan.md"), join(sb.vault, "Travel/Nippon.md"));
    const r = await reindex(ctx());
    expect(r.embeddings).toMatchObject({ embedded: 0 });
    expect(fake.embedRequests()).toHaveLength(0);
    const s = await search(ctx(), { q: "temples trains onsen", mode: "semantic" });
    expect(s.results[0].path).toBe("Travel/Nippon.md");
  });

  test("the content-hash index is built once embeddings are configured; vector search answers without it too", async () => {
    const { sb, ctx } = setup();
    const hashIndexes = () => {
      const db = new Database(join(sb.dataDir, "index.db"), { readonly: true });
      const n = db.query("SELECT count(*) AS n FROM sqlite_master WHERE name = 'chunks_hash'").get() as { n: number };
      db.close();
      return n.n;
    };
    const plain = new App(Vault.open(loadConfig({ env: sb.env })));
    await reindex(plain);
    plain.close();
    expect(hashIndexes()).toBe(0);
    await reindex(ctx());
    expect(hashIndexes()).toBe(1);

    const db = new Database(join(sb.dataDir, "index.db"));
    db.run("DROP INDEX chunks_hash");
    db.close();
    const s = await search(ctx(), { q: "temples trains onsen", mode: "semantic" });
    expect(s.results[0].path).toBe("Travel/Japan.md");
  });

  test("a lexical --rebuild keeps the stored vectors", async () => {
    const { ctx } = setup();
    await reindex(ctx());
    fake.reset();
    const r = await reindex(ctx(), { rebuild: true });
    expect(r.rebuilt).toBeTruthy();
    expect(r.embeddings).toMatchObject({ embedded: 0, reused: CHUNKS });
    expect(fake.embedRequests()).toHaveLength(0);
  });

  test("batch sizes are respected, and a batch the server refuses is split", async () => {
    const { ctx } = setup({ INDX_EMBEDDINGS_BATCH_SIZE: "3", INDX_EMBEDDINGS_CONCURRENCY: "1" });
    await reindex(ctx());
    expect(fake.embedRequests().map((q) => q.inputs)).toEqual([3, 3, 1]);

    const other = setup({ INDX_EMBEDDINGS_BATCH_SIZE: "8" });
    fake.reset();
    fake.knobs.maxBatch = 2;
    const r = await reindex(other.ctx());
    expect(r.embeddings).toMatchObject({ embedded: CHUNKS, pending: 0, batch_size: 2 });
    expect(
      fake
        .embedRequests()
        .filter((q) => q.ok)
        .every((q) => q.inputs <= 2),
    ).toBe(true);
  });

  test("transient failures are retried with backoff", async () => {
    const { ctx } = setup();
    fake.knobs.failNext = 2;
    const r = await reindex(ctx());
    expect(r.embeddings).toMatchObject({ embedded: CHUNKS, pending: 0, error: null });
    expect(r.embeddings.retries).toBeGreaterThanOrEqual(2);
  });

  test("an interrupted run keeps what it made and the next run resumes", async () => {
    const { ctx } = setup({ INDX_EMBEDDINGS_BATCH_SIZE: "2", INDX_EMBEDDINGS_CONCURRENCY: "1" });
    fake.knobs.failAfter = 2;
    const first = await reindex(ctx());
    expect(first.embeddings).toMatchObject({ embedded: 4, pending: CHUNKS - 4 });
    expect(first.embeddings.error.code).toBe("ai_provider_error");
    expect(first.warnings.map((w: any) => w.code)).toContain("embeddings_failed");
    fake.reset();
    const second = await reindex(ctx());
    expect(second.embeddings).toMatchObject({ embedded: CHUNKS - 4, reused: 4, pending: 0 });
    expect(fake.embeddedTexts()).toHaveLength(CHUNKS - 4);
  });

  test("an Ollama older than /api/embed is served one /api/embeddings call per chunk", async () => {
    const { ctx } = setup();
    fake.knobs.legacyOllama = true;
    const r = await reindex(ctx());
    expect(r.embeddings).toMatchObject({ embedded: CHUNKS, error: null });
    expect(fake.embedRequests().filter((q) => q.path === "/api/embeddings")).toHaveLength(CHUNKS);
    const s = await search(ctx(), { q: "sourdough starter", mode: "semantic" });
    expect(s.results[0].path).toBe("Cooking/Bread.md");
  });

  test("an OpenAI-compatible endpoint through the AI SDK, with its API key", async () => {
    const { sb, ctx } = setup(fakeEnv(fake, "openai", "fake-embed-128"));
    fake.knobs.apiKey = "sk-test-fake";
    const r = await reindex(ctx());
    expect(r.embeddings).toMatchObject({ provider: "openai", embedded: CHUNKS, dimension: 128 });
    expect(fake.embedRequests().every((q) => q.path === "/v1/embeddings")).toBe(true);
    const s = await search(ctx(), { q: "write-ahead logging readers" });
    expect(s.mode_used).toBe("hybrid");
    expect(s.results[0].path).toBe("Tech/Databases.md");

    sb.write("Notes/More.md", "# More\n\nSomething new to embed.\n");
    const wrong = await reindex(ctx({ INDX_OPENAI_API_KEY: "sk-wrong" }));
    expect(wrong.embeddings.error.code).toBe("ai_provider_error");
    expect(JSON.stringify(wrong)).not.toContain("sk-wrong");
  });

  test("a model the provider does not have is ai_unavailable, from indexing and from search alike", async () => {
    const { ctx } = setup(fakeEnv(fake, "ollama", "no-such-model"));
    const r = await reindex(ctx());
    expect(r.embeddings.error.code).toBe("ai_unavailable");
    const err = await search(ctx(), { q: "write-ahead logging", mode: "semantic" }).catch((e) => e);
    expect(err.code).toBe("ai_unavailable");
  });
});

describe("semantic and hybrid search", () => {
  test("semantic, hybrid and auto modes, with compact results", async () => {
    const { ctx } = setup();
    await reindex(ctx());
    const c = ctx();
    const sem = await search(c, { q: "sourdough starter ferments flour", mode: "semantic" });
    expect(sem.mode_used).toBe("semantic");
    expect(sem.results[0].path).toBe("Cooking/Bread.md");
    expect(sem.results[0].reason).toContain("semantic match");
    expect(sem.results[0].score).toBeGreaterThan(0);
    expect(sem.results[0].score).toBeLessThanOrEqual(1);

    const hyb = await search(c, { q: "crisp crust steam", mode: "hybrid" });
    expect(hyb.mode_used).toBe("hybrid");
    expect(hyb.results[0].path).toBe("Cooking/Bread.md");
    expect(hyb.results[0].heading).toBe("Crust"); // grouped to the note, with its best heading
    expect(hyb.results[0].reason).toMatch(/^hybrid \(lexical #1, semantic #1\)/);
    expect(hyb.results[0].score).toBe(1);
    expect(hyb.warnings).toEqual([]);

    const auto = await search(c, { q: "aphids on tomato leaves" });
    expect(auto.mode_requested).toBe("auto");
    expect(auto.mode_used).toBe("hybrid");
    expect(auto.results[0].path).toBe("Gardening/Tomatoes.md");
    for (const r of [...sem.results, ...hyb.results, ...auto.results]) {
      expect(r.snippet.length).toBeLessThan(200); // never a whole chunk
      expect(new Set((sem.results as any[]).map((x) => x.path)).size).toBe(sem.results.length);
    }
  });

  test("filters and paging hold in semantic and hybrid modes", async () => {
    const { ctx } = setup();
    await reindex(ctx());
    const c = ctx();
    const only = await search(c, { q: "file writer backup", mode: "semantic", path_glob: "Cooking/**" });
    expect(only.results.map((r: any) => r.path)).toEqual(["Cooking/Bread.md"]);
    const p1 = await search(c, { q: "oven garden trains database", mode: "hybrid", limit: 2 });
    expect(p1.results).toHaveLength(2);
    expect(p1.next_cursor).toBeTruthy();
    const p2 = await search(c, { q: "oven garden trains database", mode: "hybrid", limit: 2, cursor: p1.next_cursor });
    const paths = [...p1.results, ...p2.results].map((r: any) => r.path);
    expect(new Set(paths).size).toBe(paths.length);
  });

  test("query syntax holds in every mode: -excluded and +required filter the vector list too", async () => {
    const { ctx } = setup();
    await reindex(ctx());
    const c = ctx();
    for (const mode of ["semantic", "hybrid"]) {
      const without = await search(c, { q: "oven bread dough -sourdough", mode });
      expect(without.results.map((r: any) => r.path)).not.toContain("Cooking/Bread.md");
      const must = await search(c, { q: "+sqlite oven dough", mode });
      expect(must.results.map((r: any) => r.path)).toEqual(["Tech/Databases.md"]);
    }
  });

  test("a CJK word inside a longer run is excluded or required in the vector list as in the lexical one", async () => {
    const tokyo = "# Tokyo\n\nTokyo trains at rush hour: 東京の電車は朝から混んでいる. The Kyoto temples are calmer in the morning.\n";
    const { ctx } = setup({}, { ...NOTES, "Travel/Tokyo.md": tokyo });
    await reindex(ctx());
    const c = ctx();
    for (const mode of ["lexical", "semantic", "hybrid"]) {
      const found = (await search(c, { q: "Tokyo trains temples", mode })).results.map((r: any) => r.path);
      expect(found).toContain("Travel/Tokyo.md");
      const without = (await search(c, { q: "Tokyo trains temples -東京", mode })).results.map((r: any) => r.path);
      expect(without).not.toContain("Travel/Tokyo.md");
      expect(without).toContain("Travel/Japan.md");
      const must = (await search(c, { q: "+電車 trains temples", mode })).results.map((r: any) => r.path);
      expect(must).toEqual(["Travel/Tokyo.md"]);
    }
  });

  test("pending chunks are a visible warning", async () => {
    const { sb, ctx } = setup();
    await reindex(ctx());
    sb.write("Notes/New.md", "# New\n\nA fresh note about sourdough and tomatoes that nobody has embedded yet.\n");
    await reindex(ctx(), { embeddings: false });
    const s = await search(ctx(), { q: "sourdough" });
    expect(s.mode_used).toBe("hybrid");
    expect(s.warnings.map((w: any) => w.code)).toContain("embeddings_incomplete");
  });

  test("provider down: lexical with a warning; explicit semantic is ai_unavailable", async () => {
    const { ctx } = setup();
    await reindex(ctx());
    const down = ctx({ INDX_OLLAMA_URL: deadUrl() });
    const auto = await search(down, { q: "sourdough bread" });
    expect(auto.mode_used).toBe("lexical");
    expect(auto.results[0].path).toBe("Cooking/Bread.md");
    expect(auto.warnings[0].code).toBe("embeddings_unavailable");
    const hyb = await search(down, { q: "sourdough bread", mode: "hybrid" });
    expect(hyb.mode_used).toBe("lexical");
    expect(hyb.warnings[0].code).toBe("embeddings_unavailable");
    const err = await rejects(search(down, { q: "sourdough bread", mode: "semantic" }));
    expect(err.code).toBe("ai_unavailable");
    // related needs no provider call: the stored vectors serve it.
    const rel: any = await invoke(related, down, { id: "Cooking/Bread.md" });
    expect(rel.mode_used).toBe("semantic");
  });

  test("provider down while indexing: exit 0 with a warning, or an error with require_embeddings", async () => {
    const { sb, ctx } = setup({ INDX_OLLAMA_URL: deadUrl() });
    const r = await reindex(ctx());
    expect(r.added).toBe(4); // the lexical index is complete
    expect(r.embeddings.error.code).toBe("ai_unavailable");
    expect(r.warnings.map((w: any) => w.code)).toContain("embeddings_failed");
    const s = await search(ctx(), { q: "sourdough" });
    expect(s.mode_used).toBe("lexical");
    expect(s.warnings[0].code).toBe("embeddings_unavailable");
    sb.write("Notes/Extra.md", "# Extra\n\nMore words.\n");
    const err = await rejects(reindex(ctx(), { require_embeddings: true }));
    expect(err.code).toBe("ai_unavailable");
    expect(((await search(ctx(), { q: "extra words", mode: "lexical" })) as any).results[0].path).toBe("Notes/Extra.md");
  });

  test("a changed model is index_incompatible until --reembed", async () => {
    const { ctx } = setup();
    await reindex(ctx());
    const other = { INDX_EMBEDDINGS_MODEL: "fake-embed-32" };
    const err = await rejects(search(ctx(other), { q: "tomato", mode: "semantic" }));
    expect(err.code).toBe("index_incompatible");
    expect(err.message).toContain("indx vault index --reembed");
    expect(err.details?.fix).toBe("indx vault index --reembed");
    const auto = await search(ctx(other), { q: "tomato" });
    expect(auto.mode_used).toBe("lexical");
    expect(auto.warnings[0].code).toBe("embeddings_incompatible");

    fake.reset();
    const r = await reindex(ctx(other));
    expect(r.embeddings).toBeNull();
    expect(r.warnings.map((w: any) => w.code)).toContain("embeddings_incompatible");
    expect(fake.embedRequests()).toHaveLength(0); // never mixed in
    expect((await rejects(reindex(ctx(other), { require_embeddings: true }))).code).toBe("index_incompatible");

    const re = await reindex(ctx(other), { reembed: true });
    expect(re.embeddings).toMatchObject({ model: "fake-embed-32", dimension: 32, embedded: CHUNKS });
    expect((await search(ctx(other), { q: "tomato", mode: "semantic" })).results[0].path).toBe("Gardening/Tomatoes.md");
  });

  test("a corrupt vectors.db never takes lexical search down; --reembed repairs it", async () => {
    const { sb, ctx } = setup();
    await reindex(ctx());
    for (const suffix of ["-wal", "-shm"]) rmSync(join(sb.dataDir, `vectors.db${suffix}`), { force: true });
    writeFileSync(join(sb.dataDir, "vectors.db"), "this is not a database ".repeat(200));
    const auto = await search(ctx(), { q: "sourdough" });
    expect(auto.mode_used).toBe("lexical");
    expect(auto.results[0].path).toBe("Cooking/Bread.md");
    expect(auto.warnings[0].code).toBe("embeddings_incompatible");
    const st: any = await invoke(vaultStatus, ctx(), { probe: false });
    expect(st.embeddings).toMatchObject({ state: "incompatible", fix: "indx vault index --reembed" });
    const r = await reindex(ctx());
    expect(r.warnings.map((w: any) => w.code)).toContain("embeddings_incompatible");
    const re = await reindex(ctx(), { reembed: true });
    expect(re.embeddings).toMatchObject({ embedded: CHUNKS, pending: 0 });
    expect((await search(ctx(), { q: "sourdough", mode: "semantic" })).results[0].path).toBe("Cooking/Bread.md");
  });

  test("explicit semantic without any provider is an actionable ai_unavailable", async () => {
    const { sb } = setup();
    const c = new App(Vault.open(loadConfig({ env: sb.env })));
    open[open.length - 1]!.ctxs.push(c);
    await reindex(c);
    const err = await rejects(search(c, { q: "tomato", mode: "semantic" }));
    expect(err.code).toBe("ai_unavailable");
    expect(err.message).toContain("INDX_EMBEDDINGS_PROVIDER");
    const auto = await search(c, { q: "tomato" });
    expect(auto.mode_used).toBe("lexical");
    expect(auto.warnings).toEqual([]); // not configured: lexical is simply the default
    const hyb = await search(c, { q: "tomato", mode: "hybrid" });
    expect(hyb.warnings[0].code).toBe("embeddings_unavailable");
  });

  test("related uses vectors, excludes the note itself, and hybrid fuses", async () => {
    const { ctx } = setup();
    await reindex(ctx());
    const c = ctx();
    const rel: any = await invoke(related, c, { id: "Cooking/Bread.md" });
    expect(rel.mode_used).toBe("semantic");
    expect(rel.results.map((r: any) => r.path)).not.toContain("Cooking/Bread.md");
    expect(rel.results[0].reason).toBe("semantic neighbour");
    const chunk: any = await invoke(related, c, { id: "Gardening/Tomatoes.md#1", mode: "hybrid" });
    expect(chunk.mode_used).toBe("hybrid");
    expect(chunk.results.map((r: any) => r.path)).not.toContain("Gardening/Tomatoes.md");
    const lex: any = await invoke(related, c, { id: "Cooking/Bread.md", mode: "lexical" });
    expect(lex.mode_used).toBe("lexical");
  });
});

describe("reranking with the chat model", () => {
  test("reranks the fused top with position-aware blending", async () => {
    const { ctx } = setup({ INDX_AI_MODEL: "fake-chat" });
    await reindex(ctx());
    fake.reset();
    const s = await search(ctx(), { q: "tomato plants sunlight watering", mode: "hybrid", rerank: true });
    expect(s.warnings).toEqual([]);
    expect(s.results[0].path).toBe("Gardening/Tomatoes.md");
    expect(s.results[0].reason).toContain("reranked");
    expect(fake.requests.filter((r) => r.path === "/api/chat")).toHaveLength(1);
  });

  test("an OpenAI-compatible chat model reranks through the AI SDK (structured output)", async () => {
    const { ctx } = setup({ ...fakeEnv(fake, "openai", "fake-embed-128"), INDX_AI_MODEL: "fake-chat" });
    await reindex(ctx());
    fake.reset();
    const s = await search(ctx(), { q: "sourdough starter flour", mode: "hybrid", rerank: true });
    expect(s.warnings).toEqual([]);
    expect(s.results[0].path).toBe("Cooking/Bread.md");
    expect(s.results[0].reason).toContain("reranked");
    expect(fake.requests.filter((r) => r.path === "/v1/chat/completions")).toHaveLength(1);
  });

  test("a cancelled search stops waiting for the chat model: cancelled, not a fused-order fallback", async () => {
    const { ctx } = setup({ INDX_AI_MODEL: "fake-chat" });
    await reindex(ctx());
    fake.knobs.chatDelayMs = 10_000;
    const cancel = new AbortController();
    const c = ctx().forCall({ signal: cancel.signal });
    setTimeout(() => cancel.abort(), 200);
    const started = performance.now();
    const err = await rejects(search(c, { q: "tomato plants sunlight watering", mode: "hybrid", rerank: true }));
    expect(err.code).toBe("cancelled");
    // The chat call was aborted, not waited for (the reranker takes 10 s to answer).
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test("a failing or missing chat model keeps the fused order, with a warning", async () => {
    const { ctx } = setup({ INDX_AI_MODEL: "fake-chat" });
    await reindex(ctx());
    const plain = await search(ctx(), { q: "oven crust dough", mode: "hybrid" });
    fake.knobs.garbageChat = true;
    const bad = await search(ctx(), { q: "oven crust dough", mode: "hybrid", rerank: true });
    expect(bad.warnings.map((w: any) => w.code)).toEqual(["rerank_failed"]);
    expect(bad.results.map((r: any) => r.path)).toEqual(plain.results.map((r: any) => r.path));
    const none = await search(ctx({ INDX_AI_MODEL: "" }), { q: "oven", mode: "hybrid", rerank: true });
    expect(none.warnings.map((w: any) => w.code)).toEqual(["rerank_unavailable"]);
  });

  test("ai.enabled = false: no reranking and no chat request, whatever else is configured", async () => {
    const { ctx } = setup({ INDX_AI_MODEL: "fake-chat", INDX_AI_ENABLED: "false" });
    await reindex(ctx());
    const s = await search(ctx(), { q: "oven crust dough", mode: "hybrid", rerank: true });
    expect(s.warnings.map((w: any) => w.code)).toEqual(["rerank_unavailable"]);
    expect(s.warnings[0].message).toContain("ai.enabled = false");
    expect(fake.chats).toHaveLength(0);
  });
});

describe("status and background embedding", () => {
  test("vault_status probes the provider: model, dimension, counts", async () => {
    const { ctx } = setup();
    await reindex(ctx(), { embeddings: false });
    const before: any = await invoke(vaultStatus, ctx(), {});
    expect(before.embeddings).toMatchObject({ configured: true, provider: "ollama", model: "fake-embed-128", state: "empty", dimension: 128 });
    expect(before.embeddings.probe).toMatchObject({ ok: true, dimension: 128 });
    await reindex(ctx());
    const after: any = await invoke(vaultStatus, ctx(), { probe: false });
    expect(after.embeddings).toMatchObject({ state: "ready", available: true, dimension: 128, counts: { chunks: CHUNKS, embedded: CHUNKS, pending: 0 } });
    expect(after.embeddings.stored).toEqual({ provider: "ollama", model: "fake-embed-128", dim: 128 });
    const down: any = await invoke(vaultStatus, ctx({ INDX_OLLAMA_URL: deadUrl() }), {});
    expect(down.embeddings.state).toBe("unavailable");
    expect(down.embeddings.probe.error.kind).toBe("unreachable");
    const missing: any = await invoke(vaultStatus, ctx({ INDX_EMBEDDINGS_MODEL: "no-such-model" }), {});
    expect(missing.embeddings.state).toBe("incompatible"); // vectors of another model are stored
    const none: any = await invoke(vaultStatus, ctx({ INDX_EMBEDDINGS_PROVIDER: "" }), {});
    expect(none.embeddings).toMatchObject({ configured: false, state: "not_configured" });
  });

  test("the context owns the embedding service: scoped children share it, index updates refresh its coverage, close() ends it", async () => {
    const { sb, ctx } = setup();
    const c = ctx();
    await reindex(c);
    const child = c.forCall({ scopes: new Set(["vault:read"]) });
    const service = c.embeddings;
    expect(child.embeddings).toBe(service);
    expect(child.embeddings.availability(child)).toMatchObject({ state: "ready", pending: 0 });

    sb.write("Notes/New.md", "# New\n\nA fresh note about sourdough that nobody has embedded yet.\n");
    await c.updateIndex({ paths: ["Notes/New.md"] });
    expect(child.embeddings.availability(child)).toMatchObject({ state: "ready", pending: 1 });

    c.close();
    expect(c.embeddings).not.toBe(service);
    expect(child.embeddings).toBe(c.embeddings);
    expect((await search(child, { q: "sourdough", mode: "semantic" })).results[0].path).toBe("Cooking/Bread.md");
  });

  test("the background embedder embeds changed chunks after an index update", async () => {
    const { sb, ctx } = setup();
    await reindex(ctx());
    const c = ctx();
    const stop = c.embeddings.startBackground(c);
    try {
      sb.write("Notes/Later.md", "# Later\n\nA note written while the server runs, about bread ovens.\n");
      await c.updateIndex({ paths: ["Notes/Later.md"] });
      const deadline = Date.now() + 3000;
      while (Date.now() < deadline && VectorStore.open(sb.dataDir).count() < CHUNKS + 1) await Bun.sleep(20);
      await c.embeddings.idle();
      expect(fake.embeddedTexts().filter((t) => t.includes("written while the server runs"))).toHaveLength(1);
      const s = await search(c, { q: "server runs bread ovens", mode: "semantic" });
      expect(s.results[0].path).toBe("Notes/Later.md");
    } finally {
      stop();
    }
  });

  test("logs carry codes and counts, never note text, queries or keys", async () => {
    const { ctx } = setup({ INDX_AI_MODEL: "fake-chat" });
    const lines: string[] = [];
    const write = process.stderr.write;
    process.env.INDX_LOG = "on";
    process.stderr.write = ((chunk: string) => {
      lines.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      await reindex(ctx());
      await search(ctx(), { q: "secretquery sourdough", mode: "hybrid", rerank: true });
      await search(ctx({ INDX_OLLAMA_URL: deadUrl() }), { q: "secretquery sourdough" });
    } finally {
      process.stderr.write = write;
      process.env.INDX_LOG = "off";
    }
    const all = lines.join("");
    expect(all).toContain("embeddings.run");
    for (const secret of ["secretquery", "sourdough", "Tomato", "sk-test-fake", "Cooking/"]) expect(all).not.toContain(secret);
  });
});

describe("how much auto search uses the vectors, measured on the vault", () => {
  /** 25 notes on made-up subjects, each linked from a note whose link line names it by a synonym (or by its own word). */
  function linkedVault(byOwnWord = false): { files: Record<string, string>; synonyms: Record<string, string> } {
    const files: Record<string, string> = {};
    const synonyms: Record<string, string> = {};
    const name = (i: number) => String.fromCharCode(97 + Math.floor(i / 26), 97 + (i % 26));
    for (let i = 0; i < 25; i++) {
      const word = `qa${name(i)}zor`;
      synonyms[`qb${name(i)}zim`] = word;
      synonyms[`qc${name(i)}zup`] = word; // a synonym no note uses
      files[`Subjects/S${i}.md`] = `# Subject ${i}\n\nThe ${word} handbook: ${word} care, ${word} storage and ${word} repair.\n`;
      // Words of its own beside the synonym: nothing else in the vault shares them.
      files[`Links/L${i}.md`] = `# Links ${i}\n\n${byOwnWord ? word : `qb${name(i)}zim`} xq${name(i)}first xq${name(i)}second: [[S${i}]]\n`;
    }
    return { files, synonyms };
  }
  const auto = { INDX_SEARCH_VECTOR_WEIGHT: "auto" };
  const fusion = async (c: OpContext) => ((await invoke(vaultStatus, c, { probe: false })) as any).embeddings.fusion;

  test("vectors that find linked notes better than words are used by auto, at the weight measured", async () => {
    const { files, synonyms } = linkedVault();
    fake.knobs.synonyms = synonyms;
    const { ctx } = setup(auto, files);
    await reindex(ctx());
    const f = await fusion(ctx());
    expect(f).toMatchObject({ source: "measured", queries: 25 });
    expect(f.vector_weight).toBeGreaterThan(0);
    expect(f.fused_mrr[String(f.vector_weight)]).toBeGreaterThan(f.lexical_mrr);
    const s = await search(ctx(), { q: "qcaczup" });
    expect(s.mode_used).toBe("hybrid");
    expect(s.results[0].path).toBe("Subjects/S2.md");
  });

  test("vectors that do not beat words leave auto lexical; hybrid on request still fuses", async () => {
    const { files } = linkedVault(true);
    const { ctx } = setup(auto, files);
    await reindex(ctx());
    const f = await fusion(ctx());
    expect(f).toMatchObject({ source: "measured", vector_weight: 0, queries: 25 });
    expect(f.reason).toContain("lexical");
    expect((await search(ctx(), { q: "qaaczor care" })).mode_used).toBe("lexical");
    expect((await search(ctx(), { q: "qaaczor care", mode: "hybrid" })).mode_used).toBe("hybrid");
  });

  test("too few links to measure with: auto stays lexical, and says why", async () => {
    const { ctx } = setup(auto);
    await reindex(ctx());
    const f = await fusion(ctx());
    expect(f).toMatchObject({ source: "measured", vector_weight: 0 });
    expect(f.reason).toMatch(/^only \d+ link lines/);
    expect((await search(ctx(), { q: "aphids on tomato leaves" })).mode_used).toBe("lexical");
  });

  test("search.vector_weight overrides the measure; a bad value is a validation error", async () => {
    const { files, synonyms } = linkedVault();
    fake.knobs.synonyms = synonyms;
    const { ctx } = setup(auto, files);
    await reindex(ctx());
    const off = ctx({ INDX_SEARCH_VECTOR_WEIGHT: "0" });
    expect(await fusion(off)).toMatchObject({ source: "configured", vector_weight: 0 });
    expect((await search(off, { q: "qbaczim" })).mode_used).toBe("lexical");
    expect((await rejects(search(ctx({ INDX_SEARCH_VECTOR_WEIGHT: "lots" }), { q: "qbaczim" }))).code).toBe("validation_failed");
  });
});
