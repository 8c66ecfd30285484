import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { aiAsk } from "../../../src/ai/ops/ask/ask-ops.ts";
import { aiStatus } from "../../../src/ai/ops/status-ops.ts";
import { aiSummarize } from "../../../src/ai/ops/summarize/summarize-ops.ts";
import { aiToc } from "../../../src/ai/ops/toc/toc-ops.ts";
import type { App } from "../../../src/app/context.ts";
import { vaultReindex } from "../../../src/maintenance/ops.ts";
import { noteRead } from "../../../src/notes/ops.ts";
import { noteDelete } from "../../../src/notes/write-ops.ts";
import { type FakeAiServer, fakeChatEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";
import { parsePassages } from "../../support/fake-chat.ts";
import { invoke, rejection } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/** The grounded AI operations in process, against the fake chat server speaking Ollama's protocol. */
let fake: FakeAiServer;
let sb: Sandbox;
let ctx: App;

function context(env: Record<string, string> = {}): App {
  Object.assign(sb.env, env);
  return sb.context();
}

beforeAll(async () => {
  fake = startFakeAiServer();
  sb = sandbox({ "Private/Secret.md": "# Secret\n\nThe launch code of the rollback canary is swordfish.\n" }, { fromDemo: true });
  ctx = context(fakeChatEnv(fake));
  await invoke(vaultReindex, ctx, {});
});

afterEach(() => fake.reset());

afterAll(() => {
  ctx.close();
  fake.stop();
  sb.cleanup();
});

/** The first passage id of a prompt and a line of its text long enough to quote. */
function quotable(prompt: string): [string, string, string] {
  for (const p of parsePassages(prompt)) {
    const line = p.text.split("\n").find((l) => l.trim().length >= 30);
    if (line) return [p.text, p.id, line.trim()];
  }
  throw new Error("no quotable passage");
}

describe("ai_ask", () => {
  test("answers from retrieved passages with citations verified against the notes", async () => {
    const out = await invoke(aiAsk, ctx, { question: "How do we roll back the release?", cache: false });
    expect(out.citations.length).toBeGreaterThan(0);
    const c = out.citations[0]!;
    expect(c.path).toBe("Reference/Runbook.md");
    const text = await Bun.file(`${sb.vault}/${c.path}`).text();
    // The snippet is verbatim from the cited line of the note.
    expect(text.split("\n")[c.line! - 1]).toContain(c.snippet!.slice(0, 20));
    expect(out.retrieved.map((r) => r.path)).toContain("Reference/Runbook.md");
    expect(out.usage.input_tokens).toBeGreaterThan(0);
    // The model saw numbered passages, never asked to type a path.
    expect(fake.chats[0]!.text).toContain("[P1] ");
  });

  test("a fabricated quote or an unknown passage is dropped with citation_invalid; none left is I don't know", async () => {
    fake.scriptChat({
      content: {
        supported: true,
        segments: [{ text: "Turn it off.", citations: [{ passage: "P1", quote: "a sentence that is in no note at all" }] }],
        followups: [],
      },
    });
    const all = await invoke(aiAsk, ctx, { question: "How do we roll back?", cache: false });
    expect(all.answer).toBe("I don't know based on the indexed vault.");
    expect(all.warnings.map((w) => w.code)).toEqual(expect.arrayContaining(["citation_invalid", "ungrounded_dropped", "unsupported_question"]));

    fake.onChat((chat) => {
      const real = quotable(chat.text);
      return {
        content: {
          supported: true,
          segments: [
            {
              text: real[2]!,
              citations: [
                { passage: real[1]!, quote: real[2]! },
                { passage: "P99", quote: real[2]! },
              ],
            },
          ],
          followups: [],
        },
      };
    });
    const some = await invoke(aiAsk, ctx, { question: "How do we roll back?", cache: false });
    expect(some.citations).toHaveLength(1);
    expect(some.confidence).toBe("medium");
    expect(some.warnings.map((w) => w.code)).toContain("citation_invalid");
  });

  test("a note edited while the model writes is citation_drift", async () => {
    const runbook = `${sb.vault}/Reference/Runbook.md`;
    const before = await Bun.file(runbook).text();
    fake.onChat(() => {
      Bun.write(runbook, `${before}\nEdited during generation.\n`);
      return undefined;
    });
    try {
      const out = await invoke(aiAsk, ctx, { question: "How do we roll back the release?", top_k: 1, cache: false });
      expect(out.answer).toBe("I don't know based on the indexed vault.");
      expect(out.warnings.map((w) => w.code)).toEqual(expect.arrayContaining(["citation_drift", "unsupported_question"]));
    } finally {
      await Bun.write(runbook, before);
      await invoke(vaultReindex, ctx, {});
    }
  });

  test("without support it says it does not know, with unsupported_question", async () => {
    fake.scriptChat({ content: { supported: false, segments: [], followups: [] } });
    const out = await invoke(aiAsk, ctx, { question: "What is the boiling point of mercury?", cache: false });
    expect(out.answer).toBe("I don't know based on the indexed vault.");
    expect(out.confidence).toBe("low");
    expect(out.warnings.map((w) => w.code)).toContain("unsupported_question");
  });

  test("a deny-globbed note's text never reaches the provider, and the answer says globs_excluded", async () => {
    const denied = context({ INDX_AI_DENY_GLOBS: "Private/**" });
    try {
      const out = await invoke(aiAsk, denied, { question: "What is the launch code of the rollback canary?", cache: false });
      expect(out.warnings.map((w) => w.code)).toContain("globs_excluded");
      expect(fake.chats.length).toBeGreaterThan(0);
      for (const chat of fake.chats) expect(chat.text).not.toContain("swordfish");
      expect(out.retrieved.map((r) => r.path)).not.toContain("Private/Secret.md");
    } finally {
      denied.close();
      delete sb.env.INDX_AI_DENY_GLOBS;
    }
  });

  test("a cache hit makes no request and costs nothing; an edit invalidates only the entries that read the note", async () => {
    const ask = { question: "How do we roll back the release?", top_k: 1 };
    const first = await invoke(aiAsk, ctx, ask);
    expect(first.warnings.map((w) => w.code)).not.toContain("ai_cache_hit");
    const other = await invoke(aiSummarize, ctx, { scope: { kind: "paths", paths: ["People/Ada Lovelace.md"] } });
    const calls = fake.chats.length;
    const hit = await invoke(aiAsk, ctx, ask);
    expect(fake.chats.length).toBe(calls);
    expect(hit.usage).toEqual({ input_tokens: 0, output_tokens: 0, cost_usd: 0 });
    expect(hit.warnings.map((w) => w.code)).toContain("ai_cache_hit");
    expect(hit.answer).toBe(first.answer);

    const entries = ctx.ai.cache.stats().entries;
    const runbook = `${sb.vault}/Reference/Runbook.md`;
    await Bun.write(runbook, `${await Bun.file(runbook).text()}\nOne more line.\n`);
    await ctx.updateIndex({ paths: ["Reference/Runbook.md"] });
    expect(ctx.ai.cache.stats().entries).toBe(entries - 1);
    const again = await invoke(aiSummarize, ctx, { scope: { kind: "paths", paths: ["People/Ada Lovelace.md"] } });
    expect(again.warnings.map((w) => w.code)).toContain("ai_cache_hit");
    expect(again.summary.text).toBe(other.summary.text);
  });

  test("a repeated question searches again once the index changed: a new note can be retrieved", async () => {
    const ask = { question: "Which zeppelin hangar stores the quokka telescope?", top_k: 3 };
    const first = await invoke(aiAsk, ctx, ask);
    expect(first.retrieved.map((r) => r.path)).not.toContain("Inbox/Hangar.md");
    sb.write("Inbox/Hangar.md", "# Hangar\n\nThe zeppelin hangar stores the quokka telescope in bay seven.\n");
    await ctx.updateIndex({ paths: ["Inbox/Hangar.md"] });
    const again = await invoke(aiAsk, ctx, ask);
    expect(again.retrieved.map((r) => r.path)).toContain("Inbox/Hangar.md");
    expect(again.warnings.map((w) => w.code)).not.toContain("ai_cache_hit");
    expect(again.citations.map((c) => c.path)).toContain("Inbox/Hangar.md");
  });

  test("over the daily cost cap: ai_quota_exceeded with when it resets", async () => {
    const capped = context({ ...fakeChatEnv(fake, "openai"), INDX_AI_DAILY_COST_USD: "0.000001", INDX_AI_PRICES: "fake-chat=1000/1000" });
    try {
      await invoke(aiAsk, capped, { question: "How do we roll back?", cache: false });
      const err = await rejection(invoke(aiAsk, capped, { question: "How do we roll back?", cache: false }));
      expect(err.code).toBe("ai_quota_exceeded");
      expect(Date.parse(String(err.details?.reset_at))).toBeGreaterThan(Date.now());
      expect(err.details?.retry_after_s).toBeGreaterThan(0);
    } finally {
      capped.close();
      delete sb.env.INDX_AI_DAILY_COST_USD;
      delete sb.env.INDX_AI_PRICES;
      Object.assign(sb.env, fakeChatEnv(fake));
    }
  });
});

describe("ai_summarize and ai_toc", () => {
  test("a summary keeps only key points with a verified citation", async () => {
    fake.onChat((chat) => {
      const real = quotable(chat.text);
      return {
        content: {
          tldr: [],
          text: [{ text: real[2]!, citations: [{ passage: real[1]!, quote: real[2]! }] }],
          key_points: [
            { text: real[2]!, citations: [{ passage: real[1]!, quote: real[2]! }] },
            { text: "Invented point.", citations: [{ passage: real[1]!, quote: "nothing like this is written anywhere" }] },
          ],
          open_questions: [],
        },
      };
    });
    const out = await invoke(aiSummarize, ctx, { scope: { kind: "paths", paths: ["Projects/Apollo Launch.md"] }, cache: false });
    expect(out.summary.key_points).toHaveLength(1);
    expect(out.summary.text).toBe(out.summary.key_points![0]!);
    expect(out.warnings.map((w) => w.code)).toContain("ungrounded_dropped");
    expect(out.scope_resolved.paths).toEqual(["Projects/Apollo Launch.md"]);
  });

  test("a scope larger than the prompt budget is summarized map-reduce, each step grounded", async () => {
    const small = context({ INDX_AI_MAX_INPUT_TOKENS: "1500" });
    try {
      const out = await invoke(aiSummarize, small, { scope: { kind: "glob", path_glob: "**" }, cache: false });
      // Several map requests (each within the budget), then one reduce request.
      expect(fake.chats.length).toBeGreaterThan(2);
      expect(out.citations.length).toBeGreaterThan(0);
      const paths = new Set(out.citations.map((c) => c.path));
      for (const p of paths) expect(out.scope_resolved.paths).toContain(p);
    } finally {
      small.close();
      delete sb.env.INDX_AI_MAX_INPUT_TOKENS;
    }
  });

  test("a map of content that cannot fit the prompt budget is ai_input_too_large, and nothing is sent", async () => {
    const small = context({ INDX_AI_MAX_INPUT_TOKENS: "300" });
    try {
      const err = await rejection(invoke(aiToc, small, { mode: "moc", scope: { kind: "glob", path_glob: "**" }, cache: false }));
      expect(err.code).toBe("ai_input_too_large");
      expect(err.details?.tokens).toBeGreaterThan(300);
      expect(fake.chats).toHaveLength(0);
    } finally {
      small.close();
      delete sb.env.INDX_AI_MAX_INPUT_TOKENS;
    }
  });

  test("ai_toc of one note without descriptions makes no provider request", async () => {
    const out = await invoke(aiToc, ctx, { mode: "note", path: "Projects/Apollo Launch.md" });
    expect(fake.chats).toHaveLength(0);
    expect(out.toc_tree[0]!.title).toBe("Apollo Launch");
    expect(out.toc_markdown).toContain("[[Projects/Apollo Launch#Risks|Risks]]");
    expect(out.usage.cost_usd).toBe(0);
  });

  test("a map of content groups by folder and can be written through the write pipeline", async () => {
    const out = await invoke(aiToc, ctx, {
      mode: "moc",
      scope: { kind: "glob", path_glob: "Projects/**" },
      title: "Projects",
      write: { path: "Index/Projects.md", if_not_exists: true },
      cache: false,
    });
    expect(out.toc_tree[0]!.children!.map((c) => c.path).sort()).toEqual([
      "Projects/Apollo Launch.md",
      "Projects/Beacon Research.md",
      "Projects/Project board.md",
    ]);
    expect(out.written?.path).toBe("Index/Projects.md");
    expect(await Bun.file(`${sb.vault}/Index/Projects.md`).text()).toContain("[[Projects/Apollo Launch|Apollo Launch]]");
  });
});

describe("bad input", () => {
  test("a scope without its field, a missing note and an oversized question are typed errors, and nothing is sent", async () => {
    const noGlob = await rejection(invoke(aiSummarize, ctx, { scope: { kind: "glob" } }));
    expect(noGlob.code).toBe("validation_failed");
    expect(noGlob.details?.field).toBe("scope.path_glob");
    const missing = await rejection(invoke(aiSummarize, ctx, { scope: { kind: "paths", paths: ["Nowhere/Nothing.md"] } }));
    expect(missing.code).toBe("not_found");
    expect(missing.message).not.toContain(sb.dir);
    const traversal = await rejection(invoke(aiSummarize, ctx, { scope: { kind: "paths", paths: ["../outside.md"] } }));
    expect(traversal.code).toBe("path_invalid");
    const long = await rejection(invoke(aiAsk, ctx, { question: "x".repeat(4_001) }));
    expect(long.code).toBe("validation_failed");
    const hops = await rejection(invoke(aiSummarize, ctx, { scope: { kind: "note", path: "Welcome.md", include_linked: 9 } }));
    expect(hops.code).toBe("validation_failed");
    expect(fake.chats).toHaveLength(0);
  });
});

describe("events", () => {
  test("each call is one ai.invocation event with paths, usage and outcome, never the question or the answer", async () => {
    const question = "What does the feature flag guard during the rollout?";
    const before = ctx.events;
    const seen: unknown[] = [];
    const stop = before.subscribe((e) => {
      if (e.kind === "ai.invocation") seen.push(e);
    });
    try {
      const out = await invoke(aiAsk, ctx, { question, cache: false });
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ kind: "ai.invocation", op: "ask", ai: { ok: true, cache_hit: false, model: "fake-chat" } });
      const log = await Bun.file(`${sb.dataDir}/events.log`).text();
      expect(log).toContain('"ai.invocation"');
      expect(log).not.toContain(question);
      expect(log).not.toContain(out.answer);
    } finally {
      stop();
    }
  });
});

describe("without a chat model", () => {
  test("ai_status answers; the others are ai_unavailable naming the role, and nothing is sent", async () => {
    const none = sandbox({}, { fromDemo: true }).context();
    try {
      const status = await invoke(aiStatus, none, {});
      expect(status.enabled).toBe(false);
      const err = await rejection(invoke(aiAsk, none, { question: "anything" }));
      expect(err.code).toBe("ai_unavailable");
      expect(err.details?.required_role).toBe("chat");
      expect(fake.chats).toHaveLength(0);
      expect(fake.requests).toHaveLength(0);
    } finally {
      none.close();
    }
  });
});

describe("issue 27: cache and map of content", () => {
  test("a cache hit after an edit the index has not seen yet says citation_drift for the changed note", async () => {
    const ask = { question: "How do we roll back the release?", top_k: 1 };
    const first = await invoke(aiAsk, ctx, ask);
    expect(first.citations.length).toBeGreaterThan(0);
    const runbook = `${sb.vault}/Reference/Runbook.md`;
    const before = await Bun.file(runbook).text();
    try {
      // Edited on disk; no updateIndex: the watcher has not caught up.
      await Bun.write(runbook, `${before}\nEdited after the answer was cached.\n`);
      const hit = await invoke(aiAsk, ctx, ask);
      const codes = hit.warnings.map((w) => w.code);
      expect(codes).toContain("ai_cache_hit");
      expect(codes).toContain("citation_drift");
      expect(hit.warnings.find((w) => w.code === "citation_drift")?.path).toBe("Reference/Runbook.md");
    } finally {
      await Bun.write(runbook, before);
      await invoke(vaultReindex, ctx, {});
    }
  });

  test("a map of content grouped by tag writes headings that are not tags, so the map does not tag itself", async () => {
    const out = await invoke(aiToc, ctx, {
      mode: "moc",
      scope: { kind: "glob", path_glob: "**" },
      group_by: "tag",
      cache: false,
      write: { path: "Maps/By tag.md" },
    });
    const headings = out.toc_markdown.split("\n").filter((l) => l.startsWith("## "));
    expect(headings.length).toBeGreaterThan(1);
    for (const h of headings) expect(/(?:^|\s)#[\p{L}\p{N}_/-]/u.test(h.slice(3))).toBe(false);
    const written = await invoke(noteRead, ctx, { path: "Maps/By tag.md", include: ["tags"] });
    expect(written.tags).toEqual([]);
    await invoke(noteDelete, ctx, { path: "Maps/By tag.md" });
  });
});
