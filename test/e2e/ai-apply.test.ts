import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { etagOf } from "../../src/core/hash.ts";
import { BIN } from "../support/binary.ts";
import { type FakeAiServer, fakeChatEnv, startFakeAiServer } from "../support/fake-ai-server.ts";
import { metadataReplies, tagReplies } from "../support/fake-replies.ts";
import { applyUnifiedDiff } from "../support/unified-diff.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** `indx ai tag` and `indx ai metadata` of the compiled binary against the fake chat server. Build first: `bun run build`. */

let sb: Sandbox;
let fake: FakeAiServer;

const NOTES = {
  "Inbox/a.md": "# A\n\nTags wanted: ops, release, Bad Tag!\n\nFields wanted: status=active; due=yesterday\n",
  "Inbox/b.md": "---\ntags: [inbox]\n---\n# B\n\nTags wanted: ops\n",
};

async function run(args: string[]) {
  const p = Bun.spawn([BIN, ...args], { env: { ...sb.env, ...fakeChatEnv(fake) }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect(stdout + stderr).not.toContain(sb.dir);
  return { code, stdout, stderr };
}

const read = (path: string) => readFileSync(join(sb.vault, path), "utf8");

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error("dist/indx is missing: run `bun run build` first");
  sb = sandbox(NOTES);
  fake = startFakeAiServer();
  fake.onChat((chat) => tagReplies(chat) ?? metadataReplies(chat));
  expect((await run(["vault", "index"])).code).toBe(0);
});
afterAll(() => {
  fake?.stop();
  sb?.cleanup();
});

describe("indx ai tag / metadata", () => {
  test("--dry-run prints the edits --apply then makes (JSON through a pipe, a diff with --format table) and writes nothing", async () => {
    const dry = await run(["ai", "tag", "--scope-glob", "Inbox/**", "--dry-run"]);
    expect(dry.code).toBe(0);
    const planned = JSON.parse(dry.stdout);
    expect(planned.warnings.map((w: { code: string }) => w.code)).toContain("tag_invalid");
    expect(read("Inbox/a.md")).toBe(NOTES["Inbox/a.md"]);
    const human = await run(["ai", "tag", "--scope-glob", "Inbox/**", "--dry-run", "--format", "table"]);
    expect(human.stdout).toContain("--- a/Inbox/b.md\n+++ b/Inbox/b.md\n@@ -1,5 +1,7 @@\n ---\n-tags: [inbox]\n+tags:\n+  - inbox\n+  - ops\n ---\n # B\n \n");

    const applied = await run(["ai", "tag", "--scope-glob", "Inbox/**", "--apply"]);
    expect(applied.code).toBe(0);
    expect(JSON.parse(applied.stdout).applied.map((a: { path: string }) => a.path)).toEqual(["Inbox/a.md", "Inbox/b.md"]);
    // Each planned diff, applied by an independent reader of the format, gives what apply then wrote.
    expect(
      planned.planned?.map((p: { path: string; etag: string; diff: string }) => ({
        path: p.path,
        etag: p.etag,
        after: applyUnifiedDiff(NOTES[p.path as keyof typeof NOTES], p.diff),
      })),
    ).toEqual((["Inbox/a.md", "Inbox/b.md"] as const).map((path) => ({ path, etag: etagOf(NOTES[path]), after: read(path) })));
  });

  test("--if-match PATH=ETAG that no longer holds exits 4 with ai_apply_conflict; metadata --field fills and validates", async () => {
    const conflict = await run(["ai", "tag", "--scope-paths", "Inbox/b.md", "--apply", "--apply-mode", "replace", "--if-match", "Inbox/b.md=0000000000000000"]);
    expect(conflict.code).toBe(4);
    expect(conflict.stderr).toContain("ai_apply_conflict");

    const meta = await run(["ai", "metadata", "--scope-paths", "Inbox/a.md", "--field", "status:enum=active|done!", "--field", "due:date", "--apply"]);
    expect(meta.code).toBe(0);
    const out = JSON.parse(meta.stdout);
    expect(out.applied[0].fields_set).toEqual(["status"]);
    expect(out.warnings.map((w: { code: string }) => w.code)).toContain("metadata_invalid");
    expect(read("Inbox/a.md")).toContain("status: active\n");
    expect(read("Inbox/a.md")).not.toContain("due:");
  });
});
