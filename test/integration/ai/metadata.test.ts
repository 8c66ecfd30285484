import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { aiMetadata } from "../../../src/ai/ops/metadata/metadata-ops.ts";
import type { App } from "../../../src/app/context.ts";
import type { IndxError } from "../../../src/core/errors.ts";
import { etagOf } from "../../../src/core/hash.ts";
import { vaultReindex } from "../../../src/maintenance/ops.ts";
import { type FakeAiServer, fakeChatEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";
import { metadataReplies } from "../../support/fake-replies.ts";
import { invoke } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/** ai_metadata in process against the fake chat server: typed fields, server-side validation, apply modes. */
const fake: FakeAiServer = startFakeAiServer();
let sb: Sandbox;
let ctx: App;

beforeEach(async () => {
  fake.onChat(metadataReplies);
  sb = sandbox(VAULT);
  Object.assign(sb.env, fakeChatEnv(fake));
  ctx = sb.context();
  await invoke(vaultReindex, ctx, {});
});
afterEach(() => {
  fake.reset();
  ctx.close();
  sb.cleanup();
});
afterAll(() => fake.stop());

const read = (path: string) => readFileSync(join(sb.vault, path), "utf8");
const etag = (path: string) => etagOf(readFileSync(join(sb.vault, path)));
const codes = (warnings: { code: string; path?: string }[]) => warnings.map((w) => w.code);

const VAULT = {
  "Projects/App.md":
    '---\ntitle: Kept title\nstakeholders: [Alice]\n---\n# App\n\nFields wanted: title=App build plan; status=active; due=2026-09-01; stakeholders=["Alice","Bob"]; effort=3; tags=Planning\n',
  "Projects/Bad.md": "# Bad\n\nFields wanted: status=Active; due=yesterday; effort=40; code=abc; started=2026-05-02T10:00:00+02:00\n",
};

const FIELDS = [
  { key: "title", type: "string", required: true },
  { key: "status", type: "enum", enum: ["idea", "active", "blocked", "done"], required: true },
  { key: "due", type: "date" },
  { key: "stakeholders", type: "list", list_item_type: "string", max: 5 },
  { key: "effort", type: "number", min: 0, max: 10 },
  { key: "tags", type: "string" },
  { key: "code", type: "string", pattern: "^[A-Z]{3}$" },
  { key: "started", type: "datetime" },
  { key: "reviewed", type: "boolean", default: false },
];

describe("ai_metadata", () => {
  test("asks for a typed JSON schema without the pattern; invalid values (enum near-miss, 'yesterday', out of range, pattern) are dropped with metadata_invalid", async () => {
    const out = await invoke(aiMetadata, ctx, { scope: { kind: "paths", paths: ["Projects/Bad.md"] }, fields: FIELDS });
    const schema = JSON.stringify(fake.chats[0]!.schema);
    expect(schema).toContain('"format":"date"');
    expect(schema).not.toContain("[A-Z]{3}");
    const f = out.results[0]!.fields;
    expect(f.status).toMatchObject({ value: null, problem: "invalid" });
    expect(f.due).toMatchObject({ value: null, problem: "invalid" });
    expect(f.effort).toMatchObject({ value: null, problem: "invalid" });
    expect(f.code).toMatchObject({ value: null, problem: "invalid" });
    expect(f.started!.value).toBe("2026-05-02T08:00:00Z");
    expect(f.reviewed!.value).toBe(false);
    const invalid = out.warnings.filter((w) => w.code === "metadata_invalid").map((w) => w.message);
    expect(invalid.some((m) => m.includes("status") && m.includes('"Active" is not one of the enum values'))).toBe(true);
    expect(invalid.some((m) => m.includes("due") && m.includes("yesterday"))).toBe(true);
    expect(invalid).toHaveLength(4);
    expect(codes(out.warnings).filter((c) => c === "metadata_missing")).toHaveLength(2); // title, and status once dropped
  });

  test("set_missing keeps curated values; list keys are written as lists; a repeat is apply_skipped_no_change", async () => {
    const input = { scope: { kind: "paths", paths: ["Projects/App.md"] }, fields: FIELDS, apply: true };
    const out = await invoke(aiMetadata, ctx, input);
    expect(out.results[0]!.fields.title).toMatchObject({ value: "App build plan", existing: "Kept title" });
    expect(out.applied).toEqual([
      {
        path: "Projects/App.md",
        etag: etag("Projects/App.md"),
        fields_set: ["status", "due", "effort", "tags", "reviewed"],
        fields_skipped: [
          { key: "title", reason: "existing_under_set_missing" },
          { key: "stakeholders", reason: "existing_under_set_missing" },
        ],
      },
    ]);
    expect(read("Projects/App.md")).toStartWith(
      "---\ntitle: Kept title\nstakeholders: [Alice]\nstatus: active\ndue: 2026-09-01\neffort: 3\ntags:\n  - Planning\nreviewed: false\n---\n",
    );
    const again = await invoke(aiMetadata, ctx, input);
    expect(again.applied).toEqual([]);
    expect(codes(again.warnings)).toContain("apply_skipped_no_change");
  });

  test("merge unions lists and leaves scalars; overwrite replaces; without apply the edit is a proposed patch", async () => {
    const scope = { kind: "paths", paths: ["Projects/App.md"] };
    const proposed = await invoke(aiMetadata, ctx, { scope, fields: FIELDS.slice(0, 4) });
    expect(proposed.proposed_patches![0]!.ops).toEqual([
      { op: "set_frontmatter", key: "status", value: "active" },
      { op: "set_frontmatter", key: "due", value: "2026-09-01" },
    ]);
    const merged = await invoke(aiMetadata, ctx, { scope, fields: FIELDS.slice(0, 4), apply: true, apply_mode: "merge" });
    expect(merged.applied![0]!.fields_set).toEqual(["status", "due", "stakeholders"]);
    expect(read("Projects/App.md")).toContain("stakeholders:\n  - Alice\n  - Bob\n");
    expect(read("Projects/App.md")).toContain("title: Kept title\n");
    await invoke(aiMetadata, ctx, { scope, fields: FIELDS.slice(0, 1), apply: true, apply_mode: "overwrite" });
    expect(read("Projects/App.md")).toContain("title: App build plan\n");
  });

  test("bad field specs are validation_failed before any model call", async () => {
    const bad = [
      [{ key: "s", type: "enum" }],
      [{ key: "c", type: "string", pattern: "([" }],
      // A backreference: the linear-time engine the patterns run in cannot match it (src/ai/linear-regex.ts).
      [{ key: "c", type: "string", pattern: "^(\\w)\\1$" }],
      [
        { key: "a", type: "string" },
        { key: "a", type: "number" },
      ],
    ];
    for (const fields of bad) {
      const err = await invoke(aiMetadata, ctx, { scope: { kind: "paths", paths: ["Projects/App.md"] }, fields }).then(
        () => null,
        (e: IndxError) => e,
      );
      expect(err?.code).toBe("validation_failed");
    }
    expect(fake.chats).toHaveLength(0);
  });
});
