#!/usr/bin/env bun
/**
 * ai_tag over 1,000 generated notes against the fake chat server (started here): suggestion and
 * apply in one call, then the same call again (suggestions from the cache, every note
 * apply_skipped_no_change). Reports notes/s and the share of wall time spent outside the model
 * (wall time minus the time at least one model request was in flight). Target: ≥ 200 notes/s
 * outside the model. Needs nothing beside the checkout.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { aiTag } from "../../src/ai/ops/tag/tag-ops.ts";
import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { invoke } from "../../src/ops/invoke.ts";
import type { ChatProvider } from "../../src/providers/types.ts";
import { Vault } from "../../src/vault/vault.ts";
import { fakeChatEnv, startFakeAiServer } from "../../test/support/fake-ai-server.ts";
import { tagReplies } from "../../test/support/fake-replies.ts";
import { emit, isolatedEnv, outDir, round } from "./common.ts";

const NOTES = Number(process.env.BENCH_NOTES ?? 1_000);
const TOPICS = ["ops", "release", "research", "people", "meeting", "design", "infra", "billing"];

/** Notes whose text asks the fake model for two or three tags, some the vault already has. */
function writeVault(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  for (let i = 0; i < NOTES; i++) {
    const path = join(dir, `Area${i % 10}`, `note-${String(i).padStart(4, "0")}.md`);
    mkdirSync(dirname(path), { recursive: true });
    const tags = [TOPICS[i % TOPICS.length], `${TOPICS[(i * 3) % TOPICS.length]}/sub${i % 4}`, ...(i % 5 === 0 ? ["weak@0.3"] : [])];
    const front = i % 3 === 0 ? `---\ntitle: Note ${i}\ntags: [existing]\n---\n` : "";
    writeFileSync(path, `${front}# Note ${i}\n\nA paragraph about ${TOPICS[i % TOPICS.length]} work in area ${i % 10}.\n\nTags wanted: ${tags.join(", ")}\n`);
  }
}

/** Clocks the time during which at least one model request is in flight (requests overlap). */
function clockModel(chat: ChatProvider): () => number {
  let inFlight = 0;
  let since = 0;
  let busy = 0;
  const generate = chat.generate.bind(chat);
  Object.assign(chat, {
    generate: async (req: Parameters<ChatProvider["generate"]>[0]) => {
      if (inFlight++ === 0) since = performance.now();
      try {
        return await generate(req);
      } finally {
        if (--inFlight === 0) busy += performance.now() - since;
      }
    },
  });
  return () => busy;
}

const fake = startFakeAiServer();
fake.onChat(tagReplies);
try {
  const vault = join(outDir("ai-tag"), "vault");
  writeVault(vault);
  const env = { ...isolatedEnv("ai-tag", vault), ...fakeChatEnv(fake) };
  rmSync(env.INDX_DATA_DIR!, { recursive: true, force: true });
  const ctx = new App(Vault.open(loadConfig({ env })));
  await ctx.updateIndex({ build: true });
  const modelMs = clockModel(ctx.ai.chat());
  const input = { scope: { kind: "glob", path_glob: "**" }, apply: true };

  for (const run of ["suggest+apply", "repeat (cached suggestions, no change)"]) {
    const modelBefore = modelMs();
    const started = performance.now();
    const out = await invoke(aiTag, ctx, input);
    const wall = performance.now() - started;
    const model = modelMs() - modelBefore;
    const outside = wall - model;
    emit({
      bench: "ai.tag",
      run,
      notes: out.suggestions.length,
      applied: out.applied?.length ?? 0,
      skipped_no_change: out.warnings.filter((w) => w.code === "apply_skipped_no_change").length,
      model_requests: fake.chats.length,
      wall_s: round(wall / 1000, 3),
      model_s: round(model / 1000, 3),
      outside_model_share: round(outside / wall, 3),
      notes_per_s: round(out.suggestions.length / (wall / 1000), 1),
      notes_per_s_outside_model: round(out.suggestions.length / (outside / 1000), 1),
      target_notes_per_s_outside_model: 200,
    });
    fake.chats.length = 0;
  }
  ctx.close();
} finally {
  fake.stop();
}
