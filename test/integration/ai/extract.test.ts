import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { aiExtract } from "../../../src/ai/ops/extract/extract-ops.ts";
import { providerSchema } from "../../../src/ai/provider-schema.ts";
import type { App } from "../../../src/app/context.ts";
import { etagOf } from "../../../src/core/hash.ts";
import type { VaultEvent } from "../../../src/events/types.ts";
import { vaultReindex } from "../../../src/maintenance/ops.ts";
import { noteRead } from "../../../src/notes/ops.ts";
import { type FakeAiServer, fakeChatEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";
import { ACTION_ITEMS, ANA, BO, extractLine, extractReplies, MEETINGS } from "../../support/fake-extract.ts";
import { invoke, rejection, warningCodes } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/** ai_extract in process against the fake chat server: the caller's schema, re-validation, grounding and the frontmatter apply. */
const fake: FakeAiServer = startFakeAiServer();
let sb: Sandbox;
let ctx: App;

async function setup(files: Record<string, string>) {
  sb = sandbox(files);
  Object.assign(sb.env, fakeChatEnv(fake));
  ctx = sb.context();
  await invoke(vaultReindex, ctx, {});
}

beforeEach(() => fake.onChat(extractReplies));
afterEach(() => {
  fake.reset();
  ctx?.close();
  sb?.cleanup();
});
afterAll(() => fake.stop());

const read = (path: string) => readFileSync(join(sb.vault, path), "utf8");
const etag = (path: string) => etagOf(readFileSync(join(sb.vault, path)));

const SCOPE = { kind: "glob", path_glob: "Meetings/2026-Q2/**" };

describe("ai_extract", () => {
  test("each note's data is re-validated: bad items are dropped one by one, a record that fails the schema is dropped, an uncited one too", async () => {
    await setup(MEETINGS);
    const out = await invoke(aiExtract, ctx, { scope: SCOPE, schema: ACTION_ITEMS });
    expect(out.results.map((r) => [r.path, r.data])).toEqual([
      ["Meetings/2026-Q2/04-01 Kickoff.md", [ANA, BO]],
      ["Meetings/2026-Q2/04-08 Review.md", [{ task: "Fix the build", owner: "Di" }]],
    ]);
    const kickoff = out.results[0]!;
    expect(kickoff.etag).toBe(etag("Meetings/2026-Q2/04-01 Kickoff.md"));
    expect(kickoff.confidence).toBe(0.8);
    expect(kickoff.citations[0]).toMatchObject({ path: "Meetings/2026-Q2/04-01 Kickoff.md", line: 8 });
    expect(warningCodes(out.warnings)).toEqual(
      expect.arrayContaining([
        "extract_invalid Meetings/2026-Q2/04-08 Review.md",
        "extract_invalid Meetings/2026-Q2/04-15 Retro.md",
        "citation_invalid Meetings/2026-Q2/04-22 Planning.md",
        "ungrounded_dropped Meetings/2026-Q2/04-22 Planning.md",
      ]),
    );
    const review = out.warnings.find((w) => w.code === "extract_invalid" && w.path?.endsWith("Review.md"))!;
    expect(review.message).toContain('item 0: /due_date must match format "date"');
    expect(out.warnings.find((w) => w.code === "extract_invalid" && w.path?.endsWith("Retro.md"))!.message).toContain("/ must be array");
    // destination json is read-only: no patches, nothing written.
    expect(out.proposed_patches).toBeUndefined();
    expect(out.applied).toBeUndefined();
    expect(fake.chats).toHaveLength(4);
    // The caller's schema as every provider takes it (src/ai/provider-schema.ts); its bounds are checked here.
    expect(fake.chats[0]!.schema).toMatchObject({ properties: { data: providerSchema(ACTION_ITEMS).schema, confidence: { type: "number" } } });
  });

  test("an invalid caller schema is ai_schema_invalid with the errors, before any model request", async () => {
    await setup(MEETINGS);
    const err = await rejection(
      invoke(aiExtract, ctx, { scope: SCOPE, schema: { type: "array", items: { type: "string", format: "phone" }, uniqueItems: true } }),
    );
    expect(err).toMatchObject({ code: "ai_schema_invalid" });
    expect(err!.details!.errors).toEqual([
      { path: "/items/format", message: expect.stringContaining('"phone" is not supported') },
      { path: "/uniqueItems", message: expect.stringContaining('"uniqueItems" is not supported') },
    ]);
    expect(await rejection(invoke(aiExtract, ctx, { scope: SCOPE, schema: { type: "string", maxLength: -1 } }))).toMatchObject({
      code: "ai_schema_invalid",
      details: { errors: [{ path: "/maxLength", message: "must be >= 0" }] },
    });
    expect(fake.chats).toHaveLength(0);
  });

  test("the schema and schema_id are part of the cache key; where the data goes is not", async () => {
    await setup({ "Meetings/one.md": `# One\n\n${extractLine([ANA])}\n` });
    const scope = { kind: "paths", paths: ["Meetings/one.md"] };
    await invoke(aiExtract, ctx, { scope, schema: ACTION_ITEMS });
    const hit = await invoke(aiExtract, ctx, { scope, schema: ACTION_ITEMS, destination: "frontmatter", destination_key: "action_items" });
    expect(warningCodes(hit.warnings)).toContain("ai_cache_hit");
    expect(fake.chats).toHaveLength(1);
    await invoke(aiExtract, ctx, { scope, schema: { ...ACTION_ITEMS, maxItems: 10 } });
    expect(fake.chats).toHaveLength(2);
    await invoke(aiExtract, ctx, { scope, schema: ACTION_ITEMS, schema_id: "action-items/v2" });
    expect(fake.chats).toHaveLength(3);
  });

  test("when no note's data keeps a verified citation: ai_grounding_failed; with cite false the data comes back", async () => {
    await setup({ "Meetings/one.md": `# One\n\nExtract uncited: ${JSON.stringify([ANA])}\n` });
    const scope = { kind: "paths", paths: ["Meetings/one.md"] };
    expect(await rejection(invoke(aiExtract, ctx, { scope, schema: ACTION_ITEMS }))).toMatchObject({ code: "ai_grounding_failed" });
    const uncited = await invoke(aiExtract, ctx, { scope, schema: ACTION_ITEMS, cite: false });
    expect(uncited.results.map((r) => [r.data, r.citations])).toEqual([[[ANA], []]]);
  });

  test("destination frontmatter needs destination_key; apply needs destination frontmatter; bad keys are refused; all before any model call", async () => {
    await setup(MEETINGS);
    const bad = [
      { destination: "frontmatter" },
      { destination_key: "action_items" },
      { apply: true },
      { destination: "frontmatter", destination_key: "two\nlines" },
      { destination: "frontmatter", destination_key: " padded" },
    ];
    for (const extra of bad)
      expect(await rejection(invoke(aiExtract, ctx, { scope: SCOPE, schema: ACTION_ITEMS, ...extra }))).toMatchObject({ code: "validation_failed" });
    expect(fake.chats).toHaveLength(0);
  });
});

describe("ai_extract into frontmatter", () => {
  const KICKOFF = "Meetings/2026-Q2/04-01 Kickoff.md";
  const REVIEW = "Meetings/2026-Q2/04-08 Review.md";
  const into = { scope: SCOPE, schema: ACTION_ITEMS, destination: "frontmatter", destination_key: "action_items" };

  test("without apply: proposed set_frontmatter patches, nothing written", async () => {
    await setup(MEETINGS);
    const out = await invoke(aiExtract, ctx, into);
    expect(out.proposed_patches).toEqual([
      {
        path: KICKOFF,
        if_match: etag(KICKOFF),
        ops: [{ op: "set_frontmatter", key: "action_items", value: [ANA, BO] }],
        reason: expect.any(String),
        related_to: [],
      },
      {
        path: REVIEW,
        if_match: etag(REVIEW),
        ops: [{ op: "set_frontmatter", key: "action_items", value: [{ task: "Fix the build", owner: "Di" }] }],
        reason: expect.any(String),
        related_to: [],
      },
    ]);
    expect(read(KICKOFF)).toBe(MEETINGS[KICKOFF]);
  });

  test("apply writes a typed list the index reads back; one note.updated each, one ai.invocation; a repeat is apply_skipped_no_change", async () => {
    await setup(MEETINGS);
    const events: VaultEvent[] = [];
    ctx.events.subscribe((e) => events.push(e));
    const out = await invoke(aiExtract, ctx, { ...into, apply: true, apply_mode: "merge" });
    expect(out.applied).toEqual([
      { path: KICKOFF, etag: etag(KICKOFF), key: "action_items" },
      { path: REVIEW, etag: etag(REVIEW), key: "action_items" },
    ]);
    expect(read(KICKOFF)).toStartWith(
      "---\ntitle: Kickoff\naction_items:\n  - task: Draft the launch plan\n    owner: Ana\n    due_date: 2026-05-04\n  - task: Book the venue\n    owner: Bo\n    blocked_by:\n      - budget\n---\n# Kickoff\n",
    );
    const note = await invoke(noteRead, ctx, { path: KICKOFF });
    expect(note.frontmatter?.action_items).toEqual([ANA, BO]);
    expect(events.filter((e) => e.kind === "note.updated").map((e) => e.path)).toEqual([KICKOFF, REVIEW]);
    const invocations = events.filter((e) => e.kind === "ai.invocation");
    expect(invocations.map((e) => e.ai!.applied_paths)).toEqual([[KICKOFF, REVIEW]]);

    const again = await invoke(aiExtract, ctx, { ...into, apply: true, apply_mode: "merge" });
    expect(again.applied).toEqual([]);
    expect(warningCodes(again.warnings).filter((c) => c.startsWith("apply_"))).toEqual([
      `apply_skipped_no_change ${KICKOFF}`,
      `apply_skipped_no_change ${REVIEW}`,
    ]);
  });

  test("apply modes: set_missing keeps a curated value, merge adds only new items, overwrite replaces", async () => {
    const curated = `---\naction_items:\n  - task: Draft the launch plan\n    owner: Ana\n    due_date: 2026-05-04\n---\n# One\n\n${extractLine([ANA, BO])}\n`;
    await setup({ "Meetings/one.md": curated, "Meetings/two.md": curated.replace(extractLine([ANA, BO]), extractLine([BO])) });
    const base = { ...into, scope: { kind: "paths", paths: ["Meetings/one.md"] } };
    const kept = await invoke(aiExtract, ctx, { ...base, apply: true });
    expect(kept.applied).toEqual([]);
    expect(warningCodes(kept.warnings)).toContain("apply_skipped_no_change Meetings/one.md");
    expect(read("Meetings/one.md")).toBe(curated);

    await invoke(aiExtract, ctx, { ...base, apply: true, apply_mode: "merge" });
    expect((await invoke(noteRead, ctx, { path: "Meetings/one.md" })).frontmatter?.action_items).toEqual([ANA, BO]);

    const two = { ...base, scope: { kind: "paths", paths: ["Meetings/two.md"] } };
    const replaced = await invoke(aiExtract, ctx, { ...two, apply: true, apply_mode: "overwrite" });
    expect(replaced.applied!.map((a) => a.path)).toEqual(["Meetings/two.md"]);
    expect((await invoke(noteRead, ctx, { path: "Meetings/two.md" })).frontmatter?.action_items).toEqual([BO]);
  });

  test("a read-only caller may preview, and gets forbidden on apply with nothing written", async () => {
    await setup(MEETINGS);
    const reader = ctx.forCall({ scopes: new Set(["vault:read"]) });
    const dry = await invoke(aiExtract, reader, { ...into, apply: true, dry_run: true });
    expect(dry.planned!.map((p) => p.path)).toEqual([KICKOFF, REVIEW]);
    expect(await rejection(invoke(aiExtract, reader, { ...into, apply: true }))).toMatchObject({ code: "forbidden", details: { needed: "vault:write" } });
    expect(read(KICKOFF)).toBe(MEETINGS[KICKOFF]);
  });
});
