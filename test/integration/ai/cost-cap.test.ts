import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { aiAsk } from "../../../src/ai/ops/ask/ask-ops.ts";
import { aiStatus } from "../../../src/ai/ops/status-ops.ts";
import { aiTag } from "../../../src/ai/ops/tag/tag-ops.ts";
import type { App } from "../../../src/app/context.ts";
import { loadConfig } from "../../../src/config/load.ts";
import { vaultReindex } from "../../../src/maintenance/ops.ts";
import { chatWorstCase } from "../../../src/providers/meter.ts";
import { chatSettings } from "../../../src/providers/settings.ts";
import { type FakeAiServer, fakeChatEnv, fakeEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";
import type { FakeChat } from "../../support/fake-chat.ts";
import { tagReplies } from "../../support/fake-replies.ts";
import { invoke, rejection } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/**
 * The daily cost cap holds (docs/decisions.md, "A cost cap that holds"): each request holds its
 * worst case before it is sent, across threads and processes, so concurrent callers overshoot the
 * cap by one request's worst case at most.
 */
const fake: FakeAiServer = startFakeAiServer();
const MAIN = `${import.meta.dir}/../../../src/main.ts`;
let sb: Sandbox;
let ctx: App;

/** USD per million tokens for the fake model: high, so a few requests reach a small cap. */
const PRICED = { INDX_AI_PRICES: "fake-chat=10/10", INDX_AI_MAX_OUTPUT_TOKENS: "400" };

async function setup(env: Record<string, string>) {
  sb = sandbox({}, { fromDemo: true });
  Object.assign(sb.env, fakeChatEnv(fake, "openai"), PRICED, env);
  ctx = sb.context();
  await invoke(vaultReindex, ctx, {});
}

beforeEach(() => fake.reset());
afterEach(() => {
  ctx?.close();
  sb?.cleanup();
});
afterAll(() => fake.stop());

/** The largest worst case any request the fake received was held at. */
function largestHold(chats: FakeChat[]): number {
  const s = chatSettings(loadConfig({ env: sb.env }))!;
  return Math.max(
    0,
    ...chats.map(
      (c) =>
        chatWorstCase(s, {
          system: c.system,
          messages: c.messages.filter((m) => m.role !== "system").map((m) => ({ role: "user", content: m.content })),
          ...(c.schema ? { jsonSchema: c.schema } : {}),
        }).usd,
    ),
  );
}

const figures = (what: string, f: Record<string, number>) => {
  if (process.env.INDX_TEST_FIGURES) console.log(JSON.stringify({ what, ...f }));
};

describe("the daily cost cap", () => {
  test("10 concurrent asks in one process overshoot the cap by one request's worst case at most", async () => {
    const cap = 0.02;
    await setup({ INDX_AI_DAILY_COST_USD: String(cap) });
    fake.knobs.chatDelayMs = 40;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => invoke(aiAsk, ctx, { question: `How do we roll back the release, take ${i}?`, cache: false })),
    );
    const ok = outcomes.filter((o) => o.status === "fulfilled").length;
    const refused = outcomes.filter((o) => o.status === "rejected" && (o.reason as { code?: string }).code === "ai_quota_exceeded").length;
    const spent = ctx.ai.spend.today();
    const hold = largestHold(fake.chats);
    figures("10 concurrent asks", { cap, spent, ratio: spent / cap, largest_hold: hold, ok, refused });
    expect(ok + refused).toBe(10);
    expect(refused).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(cap + hold);
    // Nothing is left held once every call has settled.
    expect(spent).toBeCloseTo(ctx.ai.spend.today(), 6);
  });

  test("6 concurrent CLI processes share one ledger and overshoot by one request's worst case at most", async () => {
    const cap = 0.015;
    await setup({ INDX_AI_DAILY_COST_USD: String(cap) });
    fake.knobs.chatDelayMs = 40;
    const procs = Array.from({ length: 6 }, (_, i) =>
      Bun.spawn(["bun", MAIN, "ai", "ask", `How do we roll back the release, process ${i}?`, "--no-cache", "--json"], {
        env: sb.env,
        stdout: "pipe",
        stderr: "pipe",
      }),
    );
    const codes = await Promise.all(procs.map((p) => p.exited));
    const spent = ctx.ai.spend.today();
    const hold = largestHold(fake.chats);
    figures("6 concurrent CLI processes", { cap, spent, ratio: spent / cap, largest_hold: hold, ok: codes.filter((c) => c === 0).length });
    expect(codes.every((c) => c === 0 || c === 7)).toBe(true);
    expect(codes.filter((c) => c === 7).length).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(cap + hold);
  }, 120_000);

  test("a reply without usage costs what was held for it", async () => {
    await setup({});
    fake.scriptChat({ usage: null });
    const out = await invoke(aiAsk, ctx, { question: "How do we roll back the release?", cache: false, cite: false });
    expect(fake.chats).toHaveLength(1);
    const hold = largestHold(fake.chats);
    expect(hold).toBeGreaterThan(0);
    expect(out.usage.cost_usd).toBeCloseTo(hold, 6);
    expect(ctx.ai.spend.today()).toBeCloseTo(hold, 6);
  });

  test("a model with no known price is refused under a cap until ai.prices names it; ai_status shows each price and its source", async () => {
    await setup({ INDX_AI_DAILY_COST_USD: "1", INDX_AI_PRICES: "" });
    const err = await rejection(invoke(aiAsk, ctx, { question: "How do we roll back the release?", cache: false }));
    expect(err).toMatchObject({ code: "ai_price_unknown", details: { model: "fake-chat" } });
    expect(fake.chats.length).toBe(0);
    const status = await invoke(aiStatus, ctx, {});
    expect(status.chat?.price).toEqual({ input_per_mtok: null, output_per_mtok: null, source: "unknown" });
    expect(status.warnings.map((w) => w.code)).toEqual(["ai_price_unknown"]);

    ctx.close();
    sb.env.INDX_AI_PRICES = "fake-chat=0.5/1.5";
    ctx = sb.context();
    await invoke(aiAsk, ctx, { question: "How do we roll back the release?", cache: false });
    expect((await invoke(aiStatus, ctx, {})).chat?.price).toEqual({ input_per_mtok: 0.5, output_per_mtok: 1.5, source: "config" });

    ctx.close();
    Object.assign(sb.env, { INDX_AI_MODEL: "gpt-5.4-mini", INDX_AI_PRICES: "" });
    ctx = sb.context();
    expect((await invoke(aiStatus, ctx, {})).chat?.price).toMatchObject({
      input_per_mtok: 0.75,
      output_per_mtok: 4.5,
      source: "builtin",
      read_on: "2026-11-27",
    });
  });

  test("ai_tag stopped by the cap mid-batch returns the suggestions already paid for, with ai_quota_reached", async () => {
    await setup({});
    fake.onChat(tagReplies);
    // One note's request first, to learn what one costs; then a cap two more of them fit under.
    await invoke(aiTag, ctx, { scope: { kind: "paths", paths: ["Welcome.md"] }, cache: false });
    const one = ctx.ai.spend.today();
    ctx.close();
    sb.env.INDX_AI_DAILY_COST_USD = String(one * 2.5);
    ctx = sb.context();
    fake.knobs.chatDelayMs = 20;
    const out = await invoke(aiTag, ctx, { scope: { kind: "glob", path_glob: "**" }, cache: false });
    expect(out.warnings.map((w) => w.code)).toContain("ai_quota_reached");
    expect(out.suggestions.length).toBeGreaterThan(0);
    expect(out.scope_resolved.paths.length).toBeGreaterThan(out.suggestions.length);
    // A result cut short is never cached: the same call asks the model again (and meets the cap).
    const calls = fake.chats.length;
    const again = await invoke(aiTag, ctx, { scope: { kind: "glob", path_glob: "**" } }).catch((err: { code?: string }) => err);
    if ("suggestions" in again) expect(again.warnings.map((w) => w.code)).not.toContain("ai_cache_hit");
    else expect(again.code).toBe("ai_quota_exceeded");
    expect(ctx.ai.spend.today()).toBeLessThanOrEqual(one * 2.5 + largestHold(fake.chats.slice(calls)));
  });

  test("paid embeddings count against the same cap and stop at it, keeping what they embedded", async () => {
    sb = sandbox({}, { fromDemo: true });
    Object.assign(sb.env, fakeEnv(fake, "openai"), { INDX_AI_PRICES: "fake-embed=2000/0", INDX_AI_DAILY_COST_USD: "0.05", INDX_EMBEDDINGS_BATCH_SIZE: "4" });
    ctx = sb.context();
    const out = await invoke(vaultReindex, ctx, {});
    expect(out.warnings.map((w) => w.code)).toContain("embeddings_failed");
    expect(out.warnings.find((w) => w.code === "embeddings_failed")!.message).toContain("ai.daily_cost_usd");
    const kept = ctx.embeddings.vectors()!.count();
    expect(kept).toBeGreaterThan(0);
    expect(ctx.embeddings.counts(ctx.index, ctx.embeddings.vectors()).pending).toBeGreaterThan(0);
    expect(ctx.ai.spend.today()).toBeGreaterThan(0);

    ctx.close();
    sb.env.INDX_AI_PRICES = "";
    ctx = sb.context();
    const unpriced = await invoke(vaultReindex, ctx, {});
    expect(unpriced.warnings.find((w) => w.code === "embeddings_failed")!.message).toContain("no known price");
  });

  test("indx vault index shows what a paid embedding run will cost before it starts", async () => {
    sb = sandbox({}, { fromDemo: true });
    Object.assign(sb.env, fakeEnv(fake, "openai"), { INDX_AI_PRICES: "fake-embed=0.02/0" });
    const proc = Bun.spawn(["bun", MAIN, "vault", "index", "--json"], { env: sb.env, stdout: "pipe", stderr: "pipe" });
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(code).toBe(0);
    expect(stderr).toMatch(/Embedding \d+ chunks \(about \d+ tokens\) with openai\/fake-embed: about \$0\.\d{4}\./);
    expect(fake.embeddedTexts().length).toBeGreaterThan(0);
  }, 60_000);
});
