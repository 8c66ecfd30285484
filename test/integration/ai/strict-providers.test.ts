import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { aiAsk } from "../../../src/ai/ops/ask/ask-ops.ts";
import { aiExtract } from "../../../src/ai/ops/extract/extract-ops.ts";
import { aiMetadata } from "../../../src/ai/ops/metadata/metadata-ops.ts";
import { aiRelate } from "../../../src/ai/ops/relate/relate-ops.ts";
import { aiSummarize } from "../../../src/ai/ops/summarize/summarize-ops.ts";
import { aiTag } from "../../../src/ai/ops/tag/tag-ops.ts";
import { aiToc } from "../../../src/ai/ops/toc/toc-ops.ts";
import type { App } from "../../../src/app/context.ts";
import { vaultReindex } from "../../../src/maintenance/ops.ts";
import type { ProviderName } from "../../../src/providers/types.ts";
import { vaultSearch } from "../../../src/search/ops.ts";
import { type FakeAiServer, fakeChatEnv, fakeEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";
import { ACTION_ITEMS } from "../../support/fake-extract.ts";
import { strictSchemaProblems } from "../../support/openai-strict.ts";
import { invoke } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/**
 * Every AI operation through the real provider code over the OpenAI protocol, against a fake that
 * refuses what api.openai.com refuses under `strict: true` (and, for a gateway's `anthropic/…`
 * model, what Anthropic refuses): no operation may send a schema the real service would refuse
 * (docs/decisions.md, "Provider-exact reply schemas").
 */
let fake: FakeAiServer;
let sb: Sandbox;

beforeAll(async () => {
  fake = startFakeAiServer();
  sb = sandbox({ "Projects/Meeting.md": "# Meeting\n\nAna will fix the build by Friday, and Bo reviews the release notes.\n" }, { fromDemo: true });
});

afterAll(() => {
  fake.stop();
  sb.cleanup();
});

describe.each(["openai", "vercel-ai-gateway"] as const)("every AI operation over %s under strict structured outputs", (provider: ProviderName) => {
  let ctx: App;
  beforeAll(async () => {
    Object.assign(sb.env, fakeChatEnv(fake, provider), fakeEnv(fake, "openai"));
    ctx = sb.context();
    await invoke(vaultReindex, ctx, {});
  });
  afterAll(() => ctx.close());

  const runs: [string, () => Promise<unknown>][] = [
    ["ai_ask", () => invoke(aiAsk, ctx, { question: "How do we roll back the release?", cache: false })],
    [
      "ai_summarize",
      () => invoke(aiSummarize, ctx, { scope: { kind: "paths", paths: ["Reference/Runbook.md"] }, include: ["tldr", "open_questions"], cache: false }),
    ],
    ["ai_toc (note)", () => invoke(aiToc, ctx, { mode: "note", path: "Reference/Runbook.md", include_descriptions: true, cache: false })],
    [
      "ai_toc (moc by topic)",
      () => invoke(aiToc, ctx, { mode: "moc", scope: { kind: "glob", path_glob: "Reference/**" }, group_by: "topic", include_summaries: true, cache: false }),
    ],
    ["ai_tag", () => invoke(aiTag, ctx, { scope: { kind: "paths", paths: ["Reference/Runbook.md"] }, cache: false })],
    [
      "ai_tag (candidates)",
      () => invoke(aiTag, ctx, { scope: { kind: "paths", paths: ["Reference/Runbook.md"] }, vocabulary: { candidates: ["ops", "release"] }, cache: false }),
    ],
    [
      "ai_metadata",
      () =>
        invoke(aiMetadata, ctx, {
          scope: { kind: "paths", paths: ["Reference/Runbook.md"] },
          fields: [
            { key: "status", type: "enum", enum: ["draft", "done"] },
            { key: "due", type: "date" },
            { key: "owners", type: "list", max: 3 },
            { key: "effort", type: "number", min: 0, max: 10 },
          ],
          cache: false,
        }),
    ],
    ["ai_extract", () => invoke(aiExtract, ctx, { scope: { kind: "paths", paths: ["Projects/Meeting.md"] }, schema: ACTION_ITEMS, cite: false, cache: false })],
    ["ai_relate", () => invoke(aiRelate, ctx, { source: { kind: "path", path: "Reference/Runbook.md" }, cache: false })],
    ["vault_search with rerank", () => invoke(vaultSearch, ctx, { q: "roll back the release", mode: "hybrid", rerank: true })],
  ];

  for (const [name, run] of runs)
    test(`${name}: every schema it sends is accepted`, async () => {
      fake.chats.length = 0;
      await run();
      const sent = fake.chats.filter((c) => c.schema);
      expect(sent.length).toBeGreaterThan(0);
      for (const chat of sent) expect(strictSchemaProblems(chat.schema, provider === "openai" ? "openai" : "anthropic")).toEqual([]);
    });
});
