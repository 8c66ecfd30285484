import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { aiTag } from "../../../src/ai/ops/tag/tag-ops.ts";
import type { App } from "../../../src/app/context.ts";
import { etagOf } from "../../../src/core/hash.ts";
import type { VaultEvent } from "../../../src/events/types.ts";
import { vaultReindex } from "../../../src/maintenance/ops.ts";
import { type FakeAiServer, fakeChatEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";
import { tagReplies } from "../../support/fake-replies.ts";
import { invoke, rejection, warningCodes } from "../../support/ops.ts";
import { applyUnifiedDiff } from "../../support/unified-diff.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/** ai_tag in process against the fake chat server: vocabulary, normalisation, and the safe apply. */
const fake: FakeAiServer = startFakeAiServer();
let sb: Sandbox;
let ctx: App;

async function setup(files: Record<string, string>) {
  sb = sandbox(files);
  Object.assign(sb.env, fakeChatEnv(fake));
  ctx = sb.context();
  await invoke(vaultReindex, ctx, {});
}

beforeEach(() => fake.onChat(tagReplies));
afterEach(() => {
  fake.reset();
  ctx?.close();
  sb?.cleanup();
});
afterAll(() => fake.stop());

const read = (path: string) => readFileSync(join(sb.vault, path), "utf8");
const etag = (path: string) => etagOf(readFileSync(join(sb.vault, path)));

const VAULT = {
  "Ops/Existing.md": "---\ntags: [Ops, Project/Alpha]\n---\n# Existing\n\nAn older note about #Ops work.\n",
  "Inbox/meeting.md":
    "# Meeting\n\nTags wanted: ops, oncall/postmortem@0.8, Bad Tag!@0.9, #project/alpha@0.95, weak@0.3, secret@0.9\n\nWe reviewed the #incident from Monday.\n",
  "Inbox/plain.md": "---\ntitle: Plain\ntags: inbox\n---\n# Plain\n\nTags wanted: ops@0.7\n",
};

describe("ai_tag suggestions", () => {
  test("normalise to the vault's spelling, mark new tags, and drop invalid, weak and forbidden ones with warnings", async () => {
    await setup(VAULT);
    const out = await invoke(aiTag, ctx, { scope: { kind: "glob", path_glob: "Inbox/**" }, vocabulary: { forbid: ["secret"] } });
    const meeting = out.suggestions.find((s) => s.path === "Inbox/meeting.md")!;
    expect(meeting.etag).toBe(etag("Inbox/meeting.md"));
    expect(meeting.tags.map((t) => [t.tag, t.confidence, t.is_new])).toEqual([
      ["Project/Alpha", 0.95, false],
      ["Ops", 0.9, false],
      ["oncall/postmortem", 0.8, true],
    ]);
    expect(meeting.tags[0]!.evidence[0]).toMatchObject({ path: "Inbox/meeting.md", etag: meeting.etag, line: 3 });
    expect(out.vocabulary).toEqual({ existing: ["Ops", "Project/Alpha"], new: ["oncall/postmortem"] });
    const warned = warningCodes(out.warnings);
    expect(warned).toContain("tag_invalid Inbox/meeting.md");
    expect(warned).toContain("tag_below_threshold Inbox/meeting.md");
    expect(out.warnings.find((w) => w.code === "tag_invalid")!.message).toContain("Bad Tag!");
    expect(out.warnings.find((w) => w.code === "tag_invalid")!.message).toContain("vocabulary.forbid");
    // Suggest-only: the edits come back as note_patch calls and nothing is written.
    expect(out.applied).toBeUndefined();
    expect(out.proposed_patches).toContainEqual({
      path: "Inbox/meeting.md",
      if_match: meeting.etag,
      ops: [{ op: "set_frontmatter", key: "tags", value: ["Project/Alpha", "Ops", "oncall/postmortem"] }],
      reason: "Suggested tags: Project/Alpha, Ops, oncall/postmortem.",
      related_to: [],
    });
    expect(read("Inbox/meeting.md")).toBe(VAULT["Inbox/meeting.md"]);
  });

  test("the prompt offers the vault's tags with counts; candidates constrain the reply schema to exactly that set", async () => {
    await setup(VAULT);
    await invoke(aiTag, ctx, { scope: { kind: "paths", paths: ["Inbox/plain.md"] }, cache: false });
    // Counted in notes: #project/alpha is also written inline in the meeting note.
    expect(fake.chats[0]!.text).toContain("most used first: Project/Alpha (2), Ops (1), inbox (1), incident (1).");
    const out = await invoke(aiTag, ctx, {
      scope: { kind: "paths", paths: ["Inbox/meeting.md"] },
      vocabulary: { candidates: ["#ops", "oncall/postmortem"] },
      cache: false,
    });
    const tagSchema = JSON.stringify((fake.chats.at(-1)!.schema as any).properties.tags.items.properties.tag);
    expect(tagSchema).toContain('"Ops"');
    expect(tagSchema).toContain('"oncall/postmortem"');
    expect(tagSchema).not.toContain("project");
    expect(out.suggestions[0]!.tags.map((t) => t.tag)).toEqual(["Ops", "oncall/postmortem"]);
    expect(out.warnings.find((w) => w.code === "tag_invalid")!.message).toContain("vocabulary.candidates");
  });

  test("namespace and allow_new restrict what is kept; a bad caller tag is validation_failed before any model call", async () => {
    await setup(VAULT);
    const ns = await invoke(aiTag, ctx, { scope: { kind: "paths", paths: ["Inbox/meeting.md"] }, vocabulary: { namespace: "oncall" } });
    expect(ns.suggestions[0]!.tags.map((t) => t.tag)).toEqual(["oncall/postmortem"]);
    const known = await invoke(aiTag, ctx, { scope: { kind: "paths", paths: ["Inbox/meeting.md"] }, vocabulary: { allow_new: false } });
    expect(known.suggestions[0]!.tags.map((t) => t.tag)).toEqual(["Project/Alpha", "Ops"]);
    const before = fake.chats.length;
    expect(await rejection(invoke(aiTag, ctx, { scope: { kind: "paths", paths: ["Inbox/meeting.md"] }, vocabulary: { forbid: ["no spaces"] } }))).toMatchObject(
      {
        code: "validation_failed",
      },
    );
    expect(fake.chats.length).toBe(before);
  });
});

describe("ai_tag apply", () => {
  test("merge adds to frontmatter tags as a list, never touches inline tags; a repeat is apply_skipped_no_change; one note.updated each and one ai.invocation", async () => {
    await setup(VAULT);
    const events: VaultEvent[] = [];
    ctx.events.subscribe((e) => events.push(e));
    const scope = { kind: "glob", path_glob: "Inbox/**" };
    const out = await invoke(aiTag, ctx, { scope, vocabulary: { forbid: ["secret"] }, apply: true });
    expect(out.proposed_patches).toBeUndefined();
    expect(out.applied).toEqual([
      { path: "Inbox/meeting.md", etag: etag("Inbox/meeting.md"), tags_added: ["Project/Alpha", "Ops", "oncall/postmortem"], tags_removed: [] },
      { path: "Inbox/plain.md", etag: etag("Inbox/plain.md"), tags_added: ["Ops"], tags_removed: [] },
    ]);
    expect(read("Inbox/plain.md")).toBe("---\ntitle: Plain\ntags:\n  - inbox\n  - Ops\n---\n# Plain\n\nTags wanted: ops@0.7\n");
    expect(read("Inbox/meeting.md")).toStartWith("---\ntags:\n  - Project/Alpha\n  - Ops\n  - oncall/postmortem\n---\n# Meeting\n");
    expect(read("Inbox/meeting.md")).toContain("We reviewed the #incident from Monday.");
    expect(events.filter((e) => e.kind === "note.updated").map((e) => e.path)).toEqual(["Inbox/meeting.md", "Inbox/plain.md"]);
    const invocations = events.filter((e) => e.kind === "ai.invocation");
    expect(invocations).toHaveLength(1);
    expect(invocations[0]!.ai!.applied_paths).toEqual(["Inbox/meeting.md", "Inbox/plain.md"]);

    const again = await invoke(aiTag, ctx, { scope, vocabulary: { forbid: ["secret"] }, apply: true });
    expect(again.applied).toEqual([]);
    expect(warningCodes(again.warnings).filter((c) => c.startsWith("apply_"))).toEqual([
      "apply_skipped_no_change Inbox/meeting.md",
      "apply_skipped_no_change Inbox/plain.md",
    ]);
  });

  test("replace sets the list to the suggestions and reports what it removed", async () => {
    await setup(VAULT);
    const out = await invoke(aiTag, ctx, { scope: { kind: "paths", paths: ["Inbox/plain.md"] }, apply: true, apply_mode: "replace" });
    expect(out.applied).toEqual([{ path: "Inbox/plain.md", etag: etag("Inbox/plain.md"), tags_added: ["Ops"], tags_removed: ["inbox"] }]);
    expect(read("Inbox/plain.md")).toStartWith("---\ntitle: Plain\ntags:\n  - Ops\n---\n");
  });

  test("a dry run shows exactly the edits the apply then makes, and writes nothing", async () => {
    await setup(VAULT);
    const before = { "Inbox/meeting.md": read("Inbox/meeting.md"), "Inbox/plain.md": read("Inbox/plain.md") };
    const dry = await invoke(aiTag, ctx, { scope: { kind: "glob", path_glob: "Inbox/**" }, apply: true, dry_run: true });
    expect(dry.applied).toBeUndefined();
    expect(read("Inbox/plain.md")).toBe(before["Inbox/plain.md"]);
    await invoke(aiTag, ctx, { scope: { kind: "glob", path_glob: "Inbox/**" }, apply: true });
    // Each planned diff, applied by an independent reader of the format, gives what apply then wrote.
    expect(dry.planned?.map((p) => ({ path: p.path, etag: p.etag, after: applyUnifiedDiff(before[p.path as keyof typeof before], p.diff) }))).toEqual(
      (["Inbox/meeting.md", "Inbox/plain.md"] as const).map((path) => ({ path, etag: etagOf(before[path]), after: read(path) })),
    );
  });

  test("over 20 notes, one edited after the suggestions: ai_apply_conflict stops there (skip goes on); no file is half written; a repeat skips every note", async () => {
    const files: Record<string, string> = {};
    for (let i = 1; i <= 20; i++) files[`Batch/n${String(i).padStart(2, "0")}.md`] = `# Note ${i}\n\nTags wanted: batch, topic-${i % 3}\n`;
    await setup(files);
    const scope = { kind: "glob", path_glob: "Batch/**" };
    const suggested = await invoke(aiTag, ctx, { scope });
    const ifMatch = Object.fromEntries(suggested.suggestions.map((s) => [s.path, s.etag]));
    const edited = "# Note 8\n\nTags wanted: batch, topic-2\n\nEdited by hand meanwhile.\n";
    writeFileSync(join(sb.vault, "Batch/n08.md"), edited);
    await ctx.updateIndex({ paths: ["Batch/n08.md"] }); // what the watcher (or the CLI's refresh) does

    const err = await rejection(invoke(aiTag, ctx, { scope, apply: true, if_match: ifMatch }));
    expect(err).toMatchObject({ code: "ai_apply_conflict" });
    expect(err!.details!.failed).toEqual([{ path: "Batch/n08.md", expected: ifMatch["Batch/n08.md"], actual: etag("Batch/n08.md") }]);
    expect((err!.details!.applied as { path: string }[]).map((a) => a.path)).toEqual(Object.keys(ifMatch).slice(0, 7));
    for (const [path, text] of Object.entries(files)) {
      const now = read(path);
      const n = Number(path.slice(7, 9));
      if (n < 8) expect(now).toBe(`---\ntags:\n  - batch\n  - topic-${n % 3}\n---\n${text}`);
      else if (n === 8) expect(now).toBe(edited);
      else expect(now).toBe(text);
    }

    const skipped = await invoke(aiTag, ctx, { scope, apply: true, if_match: ifMatch, if_match_mode: "skip" });
    expect(skipped.applied!.map((a) => a.path)).toEqual(Object.keys(ifMatch).slice(8));
    expect(warningCodes(skipped.warnings)).toContain("etag_mismatch Batch/n08.md");
    expect(read("Batch/n08.md")).toBe(edited);

    const repeat = await invoke(aiTag, ctx, { scope, apply: true });
    expect(repeat.applied!.map((a) => a.path)).toEqual(["Batch/n08.md"]);
    const last = await invoke(aiTag, ctx, { scope, apply: true });
    expect(last.applied).toEqual([]);
    expect(last.warnings.filter((w) => w.code === "apply_skipped_no_change").map((w) => w.path)).toEqual(Object.keys(ifMatch));
  });

  test("a save from an editor between a note's read and its replace survives: stop reports ai_apply_conflict with the notes applied, skip warns and goes on", async () => {
    const files: Record<string, string> = {};
    for (let i = 1; i <= 6; i++) files[`Win/n${i}.md`] = `# Note ${i}\n\nTags wanted: win, topic-${i}\n`;
    await setup(files);
    const scope = { kind: "glob", path_glob: "Win/**" };
    const tagged = (i: number) => `---\ntags:\n  - topic-${i}\n  - win\n---\n${files[`Win/n${i}.md`]}`;
    const saved = (i: number) => `# Note ${i}\n\nTags wanted: win, topic-${i}\n\nSaved in an editor meanwhile.\n`;
    // The editor saves once, after the batch has read and planned every note and before it replaces any.
    const editorSaves = (i: number) => {
      const path = `Win/n${i}.md`;
      const remove = ctx.writer.onStaged((paths) => {
        if (!paths.includes(path)) return;
        writeFileSync(join(sb.vault, path), saved(i));
        remove();
      });
    };
    const nothingLeftOver = () => {
      expect(readdirSync(join(sb.vault, "Win")).sort()).toEqual(Object.keys(files).map((p) => p.slice(4)));
      expect(existsSync(join(sb.dataDir, "write-journal.json"))).toBe(false);
    };

    editorSaves(3);
    const err = await rejection(invoke(aiTag, ctx, { scope, apply: true }));
    expect(err).toMatchObject({ code: "ai_apply_conflict" });
    expect(err!.details!.failed).toEqual([{ path: "Win/n3.md", expected: etagOf(files["Win/n3.md"]!), actual: etagOf(saved(3)) }]);
    expect(err!.details!.applied).toEqual([1, 2].map((i) => ({ path: `Win/n${i}.md`, etag: etagOf(tagged(i)) })));
    expect([1, 2, 3, 4, 5, 6].map((i) => read(`Win/n${i}.md`))).toEqual([tagged(1), tagged(2), saved(3), ...[4, 5, 6].map((i) => files[`Win/n${i}.md`]!)]);
    nothingLeftOver();
    await ctx.updateIndex({ paths: ["Win/n3.md"] }); // what the watcher does

    editorSaves(5);
    const skipped = await invoke(aiTag, ctx, { scope, apply: true, if_match_mode: "skip" });
    expect(skipped.applied!.map((a) => a.path)).toEqual(["Win/n3.md", "Win/n4.md", "Win/n6.md"]);
    expect(warningCodes(skipped.warnings).filter((c) => !c.startsWith("apply_skipped_no_change"))).toEqual(["etag_mismatch Win/n5.md"]);
    expect(read("Win/n5.md")).toBe(saved(5));
    expect(read("Win/n6.md")).toBe(tagged(6));
    nothingLeftOver();
  });

  test("an edit while the model runs: the conflict is caught at apply; if_match outside the scope is refused before any call", async () => {
    await setup({ "A/one.md": "# One\n\nTags wanted: alpha\n", "A/two.md": "# Two\n\nTags wanted: beta\n" });
    const suggested = await invoke(aiTag, ctx, { scope: { kind: "glob", path_glob: "A/**" } });
    const ifMatch = Object.fromEntries(suggested.suggestions.map((s) => [s.path, s.etag]));
    fake.onChat((chat) => {
      if (chat.text.includes("# Two")) writeFileSync(join(sb.vault, "A/two.md"), "# Two\n\nTags wanted: beta\n\nchanged\n");
      return tagReplies(chat);
    });
    const err = await rejection(invoke(aiTag, ctx, { scope: { kind: "glob", path_glob: "A/**" }, apply: true, if_match: ifMatch, cache: false }));
    expect(err).toMatchObject({ code: "ai_apply_conflict", details: { failed: [{ path: "A/two.md" }], applied: [{ path: "A/one.md" }] } });
    expect(read("A/two.md")).toBe("# Two\n\nTags wanted: beta\n\nchanged\n");

    const calls = fake.chats.length;
    const outside = await rejection(invoke(aiTag, ctx, { scope: { kind: "glob", path_glob: "A/**" }, apply: true, if_match: { "B/x.md": "abc" } }));
    expect(outside).toMatchObject({ code: "validation_failed", details: { field: "if_match" } });
    expect(fake.chats.length).toBe(calls);
  });

  test("a read-only caller may suggest, and gets forbidden on apply with nothing written", async () => {
    await setup(VAULT);
    const reader = ctx.forCall({ scopes: new Set(["vault:read"]) });
    const suggested = await invoke(aiTag, reader, { scope: { kind: "paths", paths: ["Inbox/plain.md"] }, apply: true, dry_run: true });
    expect(suggested.planned).toHaveLength(1);
    expect(await rejection(invoke(aiTag, reader, { scope: { kind: "paths", paths: ["Inbox/plain.md"] }, apply: true }))).toMatchObject({
      code: "forbidden",
      details: { needed: "vault:write" },
    });
    expect(read("Inbox/plain.md")).toBe(VAULT["Inbox/plain.md"]);
  });
});
