import { afterAll, beforeAll, expect, test } from "bun:test";
import { aiAsk } from "../../../src/ai/ops/ask/ask-ops.ts";
import { aiSummarize } from "../../../src/ai/ops/summarize/summarize-ops.ts";
import type { App } from "../../../src/app/context.ts";
import { vaultReindex } from "../../../src/maintenance/ops.ts";
import { type FakeAiServer, fakeChatEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";
import { ollamaContextOf } from "../../support/ollama-rules.ts";
import { invoke } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/**
 * The operations over Ollama, whose context the fake holds them to (test/support/ollama-rules.ts):
 * a scope larger than Ollama's default 4,096 tokens is map-reduced or trimmed to what the context
 * indx asks for holds, and no request is ever cut.
 */
let fake: FakeAiServer;
let sb: Sandbox;
let ctx: App;

/** Twelve notes of ~700 tokens each: together far more than Ollama's default context. */
const NOTES = Object.fromEntries(
  Array.from({ length: 12 }, (_, i) => [
    `Garden/Bed ${i + 1}.md`,
    `# Bed ${i + 1}\n\n${Array.from({ length: 40 }, (_, j) => `Bed ${i + 1} row ${j + 1} grows tomatoes that need six hours of sun and deep water twice a week.`).join("\n")}\n`,
  ]),
);

beforeAll(async () => {
  fake = startFakeAiServer();
  sb = sandbox(NOTES);
  Object.assign(sb.env, fakeChatEnv(fake), { INDX_OLLAMA_NUM_CTX_MAX: "8192" });
  ctx = sb.context();
  await invoke(vaultReindex, ctx, {});
});

afterAll(() => {
  ctx.close();
  fake.stop();
  sb.cleanup();
});

function noneCut(): void {
  expect(fake.chats.length).toBeGreaterThan(0);
  for (const chat of fake.chats) {
    const seen = ollamaContextOf(chat)!;
    expect(seen.truncated).toBe(false);
    expect(seen.numCtx).toBeLessThanOrEqual(8192);
  }
}

test("a summary of a scope larger than the context is map-reduced, and no request is cut", async () => {
  fake.chats.length = 0;
  const out = await invoke(aiSummarize, ctx, { scope: { kind: "glob", path_glob: "Garden/**" }, cache: false });
  expect(out.scope_resolved.total_tokens).toBeGreaterThan(8192);
  expect(fake.chats.length).toBeGreaterThan(1);
  expect(out.citations.length).toBeGreaterThan(0);
  noneCut();
});

test("an ask keeps the passages that fit the context, and its request is not cut", async () => {
  fake.chats.length = 0;
  const out = await invoke(aiAsk, ctx, { question: "How many hours of sun do the tomatoes need?", top_k: 12, mode: "lexical", cache: false });
  expect(out.citations.length).toBeGreaterThan(0);
  noneCut();
});
