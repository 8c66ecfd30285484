import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { aiAsk } from "../../../src/ai/ops/ask/ask-ops.ts";
import { aiExtract } from "../../../src/ai/ops/extract/extract-ops.ts";
import { aiMetadata } from "../../../src/ai/ops/metadata/metadata-ops.ts";
import { aiRelate } from "../../../src/ai/ops/relate/relate-ops.ts";
import { aiSummarize } from "../../../src/ai/ops/summarize/summarize-ops.ts";
import { aiTag } from "../../../src/ai/ops/tag/tag-ops.ts";
import { aiToc } from "../../../src/ai/ops/toc/toc-ops.ts";
import type { App } from "../../../src/app/context.ts";
import { VaultWatcher } from "../../../src/index/build/watcher.ts";
import { vaultReindex } from "../../../src/maintenance/ops.ts";
import { readAiResource } from "../../../src/mcp/ai-resources.ts";
import { visibleTools } from "../../../src/mcp/catalogue.ts";
import { vaultSearch } from "../../../src/search/ops.ts";
import { type FakeAiServer, fakeChatEnv, fakeEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";
import { invoke, rejection } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/**
 * The canary suite of the deny wall (docs/contracts.md, "Deny globs are a wall"): the denied notes hold
 * unique canaries, every path that talks to a model runs with chat and embeddings on the fake
 * server, and no byte the fake received may carry a canary.
 */
const fake: FakeAiServer = startFakeAiServer();
let sb: Sandbox;
let ctx: App;

/** Each canary is a word no other note has; the suite looks for it in every request. */
const CANARIES = ["zqcanarybody", "zqcanaryheading", "zqcanarytag", "zqcanaryprop", "zqcanarylinked", "zqcanaryshort"];

const VAULT: Record<string, string> = {
  "Private/Diary.md": `---\nmood: zqcanaryprop\ntags: [zqcanarytag]\n---\n# Diary\n\nThe rollback plan for the launch is zqcanarybody, kept in the diary with the launch notes.\n\n## Launch zqcanaryheading\n\nMore about the launch rollback and the release of the launch.\n`,
  "Private/Linked.md": "# Linked\n\nThe release launch rollback depends on zqcanarylinked as the release note says.\n",
  "Private/Short.md": "# Short\n\nlaunch zqcanaryshort\n",
  "Projects/Launch.md":
    "---\ntags: [launch]\n---\n# Launch\n\nThe launch rollback plan is written down here. See [[Diary]] and [[Linked]].\n\n![[Diary]]\n\n![[Linked#^x]]\n",
  "Projects/Release.md": "---\ntags: [launch, release]\n---\n# Release\n\nThe release of the launch follows the rollback plan in [[Launch]] and [[Linked]].\n",
  "Notes/Other.md": "# Other\n\nGardening notes about tomatoes and the launch of spring.\n",
};

const DENY = { INDX_AI_DENY_GLOBS: "Private/**" };

function leaked(): string[] {
  const bytes = fake.received.join("\n").toLowerCase();
  return CANARIES.filter((c) => bytes.includes(c));
}

async function setup(env: Record<string, string> = {}) {
  sb = sandbox(VAULT);
  Object.assign(sb.env, fakeEnv(fake), fakeChatEnv(fake), DENY, env);
  ctx = sb.context();
  await invoke(vaultReindex, ctx, {});
  await ctx.embeddings.idle();
}

beforeEach(() => fake.reset());
afterEach(() => {
  ctx?.close();
  sb?.cleanup();
});
afterAll(() => fake.stop());

describe("no canary of a denied note reaches a model", () => {
  test("indexing embeds no chunk of a denied note (and the fusion measure sends none of their link lines)", async () => {
    await setup();
    expect(fake.embeddedTexts().length).toBeGreaterThan(0);
    expect(leaked()).toEqual([]);
  });

  test("--reembed embeds the vault again without the denied notes", async () => {
    await setup();
    fake.reset();
    await invoke(vaultReindex, ctx, { reembed: true });
    expect(fake.embeddedTexts().length).toBeGreaterThan(0);
    expect(leaked()).toEqual([]);
  });

  test("the watcher's re-embed of an edited denied note sends nothing of it", async () => {
    await setup();
    const stop = ctx.embeddings.startBackground(ctx);
    const watcher = new VaultWatcher(ctx, 20);
    watcher.start();
    try {
      fake.reset();
      const indexed = new Promise<void>((resolve) => {
        const off = ctx.onIndexUpdate((r) => {
          if (r.changed.includes("Private/Diary.md")) {
            off();
            resolve();
          }
        });
      });
      sb.write("Private/Diary.md", `${VAULT["Private/Diary.md"]}\nA new line about the launch and zqcanarybody again.\n`);
      sb.write("Projects/Release.md", `${VAULT["Projects/Release.md"]}\nA new line about the release rollback.\n`);
      await indexed;
      for (let i = 0; i < 100 && fake.embeddedTexts().length === 0; i++) await Bun.sleep(20);
      await ctx.embeddings.idle();
      expect(fake.embeddedTexts().length).toBeGreaterThan(0);
      expect(leaked()).toEqual([]);
    } finally {
      watcher.stop();
      stop();
    }
  });

  test("vault_search with rerank, and ai_ask with search.rerank on, never show a denied note to the reranker", async () => {
    await setup({ INDX_SEARCH_RERANK: "true" });
    fake.reset();
    const found = await invoke(vaultSearch, ctx, { q: "launch rollback release", mode: "hybrid", rerank: true, limit: 10 });
    expect(found.results.some((r) => r.path.startsWith("Private/"))).toBe(true);
    expect(fake.chats.length).toBeGreaterThan(0);
    await invoke(aiAsk, ctx, { question: "What is the launch rollback plan?", cache: false });
    expect(leaked()).toEqual([]);
  });

  test("every AI operation, over every scope kind, link hops and AI resources", async () => {
    await setup();
    fake.reset();
    const note = { kind: "note", path: "Projects/Launch.md", include_linked: 3 } as const;
    const scopes = [{ kind: "glob", path_glob: "**" }, { kind: "tag", tag: "launch" }, { kind: "query", q: "launch rollback" }, note] as const;
    for (const scope of scopes) {
      await invoke(aiSummarize, ctx, { scope, cache: false });
      await invoke(aiAsk, ctx, { question: "What is the launch rollback plan?", scope, cache: false });
      await invoke(aiToc, ctx, { mode: "moc", scope, cache: false });
    }
    await invoke(aiTag, ctx, { scope: { kind: "glob", path_glob: "**" }, cache: false });
    await invoke(aiMetadata, ctx, { scope: { kind: "glob", path_glob: "**" }, fields: [{ key: "status", type: "string" }], cache: false });
    await invoke(aiExtract, ctx, {
      scope: { kind: "glob", path_glob: "**" },
      schema: { type: "array", items: { type: "string" }, maxItems: 5 },
      cache: false,
    });
    await invoke(aiRelate, ctx, { source: { kind: "path", path: "Projects/Launch.md" }, cache: false });
    await invoke(aiToc, ctx, { mode: "note", path: "Projects/Launch.md", cache: false });
    await readAiResource(ctx, "ai://summary/note/Projects%2FLaunch.md?include_linked=2");
    await readAiResource(ctx, "ai://moc/glob/**");
    expect(fake.chats.length).toBeGreaterThan(5);
    expect(leaked()).toEqual([]);
  });

  test("ai_tag does not offer the model a tag only denied notes use", async () => {
    await setup();
    fake.reset();
    await invoke(aiTag, ctx, { scope: { kind: "paths", paths: ["Projects/Release.md"] }, cache: false });
    expect(fake.chats[0]!.text).toContain("launch");
    expect(leaked()).toEqual([]);
  });
});

describe("the wall refuses what the sources let through", () => {
  test("a request carrying a denied note's text, however it got there, is refused before a byte is sent: ai_denied_content", async () => {
    await setup();
    fake.reset();
    // What a bug in an operation would send: a prompt that has a denied note's sentence in it.
    const prompt = "Context: the rollback plan for the launch is zqcanarybody, kept in the diary with the launch notes.";
    for (const chat of [ctx.ai.chat(), ctx.ai.chat()]) {
      const err = await rejection(chat.generate({ system: "Answer.", messages: [{ role: "user", content: prompt }] }));
      expect(err).toMatchObject({ code: "ai_denied_content" });
      expect(err.message).not.toContain("zqcanary");
    }
    const embed = ctx.embeddings.provider(ctx.embeddings.settings()!);
    expect(await rejection(embed.embed(["Launch zqcanaryheading"]))).toMatchObject({ code: "ai_denied_content" });
    // The caller's own words are theirs: a question that repeats a denied note's phrasing is asked.
    const asked = await invoke(aiAsk, ctx, { question: "Is the rollback plan for the launch kept in the diary with the launch notes?", cache: false });
    expect(asked.answer.length).toBeGreaterThan(0);
    expect(fake.received.length).toBe(fake.chats.length + fake.requests.filter((r) => r.inputs > 0).length);
    expect(leaked()).toEqual([]);
  });

  test("adding a deny glob drops the denied notes' stored vectors", async () => {
    await setup({ INDX_AI_DENY_GLOBS: "" });
    expect(fake.embeddedTexts().some((t) => t.includes("zqcanarybody"))).toBe(true);
    const before = ctx.embeddings.vectors()!.count();
    ctx.close();
    sb.env.INDX_AI_DENY_GLOBS = "Private/**";
    ctx = sb.context();
    await invoke(vaultReindex, ctx, {});
    await ctx.embeddings.idle();
    const after = ctx.embeddings.vectors()!.count();
    expect(after).toBeLessThan(before);
    const denied = ctx.embeddings.wall().deniedHashes;
    expect(denied.size).toBeGreaterThan(0);
    const stored = ctx.embeddings.vectors()!.hashes();
    expect([...denied].filter((h) => stored.has(h))).toEqual([]);
  });
});

describe("what the wall reads in a request", () => {
  test("zero-width characters and compatibility forms do not hide a denied sentence; a denied passage's path is refused by its provenance", async () => {
    await setup();
    const wall = ctx.ai.wall();
    await wall.ready();
    expect(wall.reason("The roll\u200bback plan for the ｌａｕｎｃｈ is zqcanarybody, kept")).not.toBeNull();
    expect(wall.reason('<passage id="P1" path="Private/Notes.md">anything at all</passage>')).not.toBeNull();
    expect(wall.reason('<passage id="P1" path="Projects/Launch.md">The launch rollback plan is written down here.</passage>')).toBeNull();
    // A short line of its own inside a longer chunk is still fingerprinted.
    expect(wall.reason("the note says launch zqcanaryheading")).not.toBeNull();
  });

  test("text a denied note shares with an allowed one (a template, a quote) is the allowed note's text too, and passes", async () => {
    const template = "## Weekly review\n\nWhat went well this week and what should change next week\n";
    sb = sandbox({
      "Private/Week 1.md": `${template}\nzqcanarybody was the plan all along for the whole team.\n`,
      "Projects/Week 2.md": `${template}\nThe garden grew tomatoes.\n`,
    });
    Object.assign(sb.env, fakeEnv(fake), fakeChatEnv(fake), DENY);
    ctx = sb.context();
    await invoke(vaultReindex, ctx, {});
    const wall = ctx.ai.wall();
    await wall.ready();
    expect(wall.reason("What went well this week and what should change next week")).toBeNull();
    expect(wall.reason("zqcanarybody was the plan all along for the whole team")).not.toBeNull();
  });
});

describe("openWorldHint", () => {
  test("AI tools say they reach the open world only when their provider is not on this machine", () => {
    const local = sandbox({});
    Object.assign(local.env, fakeChatEnv(fake));
    const remote = sandbox({});
    Object.assign(remote.env, {
      INDX_AI_PROVIDER: "openai",
      INDX_AI_MODEL: "gpt-4.1-mini",
      INDX_OPENAI_BASE_URL: "https://api.openai.com/v1",
      INDX_OPENAI_API_KEY: "sk-test",
    });
    const l = local.context();
    const r = remote.context();
    try {
      const hint = (c: App, name: string) => visibleTools(new Set(["vault:admin"]), c).find((t) => t.name === name)?.annotations?.openWorldHint;
      expect(hint(l, "ai_ask")).toBe(false);
      expect(hint(l, "vault_search")).toBe(false);
      expect(hint(r, "ai_ask")).toBe(true);
      expect(hint(r, "vault_search")).toBe(true);
      expect(hint(r, "note_read")).toBe(false);
    } finally {
      l.close();
      r.close();
      local.cleanup();
      remote.cleanup();
    }
  });
});
