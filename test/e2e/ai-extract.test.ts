import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN } from "../support/binary.ts";
import { type FakeAiServer, fakeChatEnv, startFakeAiServer } from "../support/fake-ai-server.ts";
import { ACTION_ITEMS, extractReplies, MEETINGS } from "../support/fake-extract.ts";
import { assertCliOutput, commandOps } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * `indx ai extract` through the compiled binary against the fake chat server: the caller's schema
 * is checked and the extracted data validated by ajv inside the binary. Build first: `bun run build`.
 */

let sb: Sandbox;
let fake: FakeAiServer;
let commands: Awaited<ReturnType<typeof commandOps>>;
let schemaFile: string;

async function run(args: string[], stdin?: string) {
  const p = Bun.spawn([BIN, ...args], {
    env: { ...sb.env, ...fakeChatEnv(fake) },
    stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect(stdout + stderr).not.toContain(sb.dir);
  if (code === 0) assertCliOutput(commands, args, stdout);
  return { code, stdout, stderr };
}

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error("dist/indx is missing: run `bun run build` first");
  commands = await commandOps();
  sb = sandbox(MEETINGS);
  fake = startFakeAiServer();
  schemaFile = join(sb.dir, "action-items.schema.json");
  writeFileSync(schemaFile, JSON.stringify(ACTION_ITEMS, null, 2));
  expect((await run(["vault", "index"])).code).toBe(0);
});
beforeEach(() => {
  fake.reset();
  fake.onChat(extractReplies);
});
afterAll(() => {
  fake?.stop();
  sb?.cleanup();
});

const KICKOFF = "Meetings/2026-Q2/04-01 Kickoff.md";
const warned = (out: { warnings: { code: string; path?: string }[] }) => out.warnings.map((w) => `${w.code} ${w.path ?? ""}`.trim());

describe("indx ai extract", () => {
  test("an invalid schema on stdin exits 2 with ai_schema_invalid and its errors; no model request is made", async () => {
    const r = await run(["ai", "extract", "--scope-glob", "Meetings/**", "--schema-file", "-"], JSON.stringify({ type: "string", format: "phone" }));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("ai_schema_invalid");
    expect(r.stderr).toContain("/format");
    expect(fake.chats).toHaveLength(0);
  });

  test("action items into frontmatter, merged; the schema-invalid record and item are dropped; a repeat changes nothing", async () => {
    const args = [
      "ai",
      "extract",
      "--scope-glob",
      "Meetings/2026-Q2/**",
      "--schema-file",
      schemaFile,
      "--destination",
      "frontmatter",
      "--destination-key",
      "action_items",
    ];
    const dry = await run([...args, "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout).planned.map((p: { path: string }) => p.path)).toEqual([KICKOFF, "Meetings/2026-Q2/04-08 Review.md"]);
    expect(readFileSync(join(sb.vault, KICKOFF), "utf8")).toBe(MEETINGS[KICKOFF]);

    const applied = await run([...args, "--apply", "--apply-mode", "merge"]);
    expect(applied.code).toBe(0);
    const out = JSON.parse(applied.stdout);
    expect(out.applied.map((a: { path: string }) => a.path)).toEqual([KICKOFF, "Meetings/2026-Q2/04-08 Review.md"]);
    expect(warned(out)).toEqual(
      expect.arrayContaining(["extract_invalid Meetings/2026-Q2/04-08 Review.md", "extract_invalid Meetings/2026-Q2/04-15 Retro.md"]),
    );
    expect(readFileSync(join(sb.vault, KICKOFF), "utf8")).toContain(
      "action_items:\n  - task: Draft the launch plan\n    owner: Ana\n    due_date: 2026-05-04\n",
    );
    expect(readFileSync(join(sb.vault, "Meetings/2026-Q2/04-08 Review.md"), "utf8")).toStartWith(
      "---\naction_items:\n  - task: Fix the build\n    owner: Di\n---\n",
    );

    const repeat = await run([...args, "--apply", "--apply-mode", "merge"]);
    const again = JSON.parse(repeat.stdout);
    expect(again.applied).toEqual([]);
    expect(warned(again).filter((w) => w.startsWith("apply_"))).toEqual([
      `apply_skipped_no_change ${KICKOFF}`,
      "apply_skipped_no_change Meetings/2026-Q2/04-08 Review.md",
    ]);
  });
});
