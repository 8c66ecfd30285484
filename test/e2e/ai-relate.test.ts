import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { BIN } from "../support/binary.ts";
import { type FakeAiServer, fakeChatEnv, fakeEnv, startFakeAiServer } from "../support/fake-ai-server.ts";
import { assertCliOutput, commandOps } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** `indx ai relate` of the compiled binary against the fake chat and embeddings server. Build first: `bun run build`. */

const NOTES: Record<string, string> = {
  "Garden/Tomatoes.md":
    "# Tomatoes\n\nTomato plants need full sunlight, warm soil and regular watering through the summer.\n\nSee [[Watering]] for the schedule.\n",
  "Garden/Watering.md": "# Watering\n\nWater the tomato plants early in the morning so the soil stays warm and the leaves dry before night.\n",
  "Kitchen/Sauce.md": "# Tomato sauce\n\nSimmer ripe tomatoes from the garden with garlic and olive oil for an hour.\n",
  "Kitchen/Salsa.md": "# Salsa\n\nFresh salsa of chopped ripe tomatoes, onion and lime, as the garden gives them.\n",
};

let sb: Sandbox;
let fake: FakeAiServer;
let embeddings: Record<string, string>;

async function run(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawn([BIN, ...args], { env: { ...sb.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect(stdout + stderr).not.toContain(sb.dir);
  return { code, stdout, stderr };
}

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error("dist/indx is missing: run `bun run build` first");
  sb = sandbox(NOTES);
  fake = startFakeAiServer();
  embeddings = fakeEnv(fake, "ollama", "fake-embed-128");
  expect((await run(["vault", "index"], embeddings)).code).toBe(0);
});
afterAll(() => {
  fake?.stop();
  sb?.cleanup();
});

describe("indx ai relate", () => {
  test("--path with --propose-links prints the operation's JSON: typed edges and drafts, one model request", async () => {
    fake.reset();
    const args = ["ai", "relate", "--path", "Garden/Tomatoes.md", "--propose-links", "--no-cache"];
    const r = await run(args, { ...embeddings, ...fakeChatEnv(fake) });
    expect(r.code).toBe(0);
    assertCliOutput(await commandOps(), args, r.stdout);
    const out = JSON.parse(r.stdout);
    expect(out.edges.length).toBeGreaterThan(0);
    expect(out.edges.every((e: { relation?: string }) => e.relation)).toBe(true);
    expect(out.proposed_patches[0].path).toBe("Garden/Tomatoes.md");
    expect(fake.chats).toHaveLength(1);
  });

  test("flags map to the input: a scope source, candidates glob, mode, labels, threshold and top-k", async () => {
    fake.reset();
    const args = [
      "ai",
      "relate",
      "--scope-glob",
      "Garden/**",
      "--candidates-glob",
      "Kitchen/**",
      "--mode",
      "lexical",
      "--relations",
      "same_topic,extends",
      "--threshold",
      "0.1",
      "--top-k",
      "1",
      "--no-cache",
    ];
    const r = await run(args, { ...embeddings, ...fakeChatEnv(fake) });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.scope_resolved).toEqual({ sources: ["Garden/Tomatoes.md", "Garden/Watering.md"], candidates_considered: 2 });
    for (const e of out.edges) {
      expect(e.dst_path.startsWith("Kitchen/")).toBe(true);
      expect(e.relation).toBe("same_topic");
      expect(e.confidence).toBeGreaterThanOrEqual(0.1);
    }
    // One neighbour per source, offered with the narrowed labels.
    expect(fake.chats).toHaveLength(2);
    for (const chat of fake.chats) {
      expect(chat.text).toContain("Relations: same_topic, extends");
      expect(chat.text).not.toContain("C2: ");
    }
  });

  test("--format table shows a table of edges; embeddings only with --no-classify labels nothing and asks no model", async () => {
    fake.reset();
    const r = await run(["ai", "relate", "--path", "Garden/Tomatoes.md", "--no-classify", "--format", "table"], embeddings);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^\d+ relationships? from 1 note$/);
    expect(lines[1]!.split(/\s{2,}/)).toEqual(["SOURCE", "RELATED", "RELATION", "CONF", "SIM"]);
    const row = lines.find((l) => l.includes("Garden/Watering.md"))!;
    expect(row.split(/\s{2,}/)).toEqual(["Garden/Tomatoes.md", "Garden/Watering.md", "—", expect.stringMatching(/^0\.\d\d$/)]);
    expect(fake.chats).toHaveLength(0);
  });

  test("without any model: exit 6 with ai_unavailable", async () => {
    const r = await run(["ai", "relate", "--path", "Garden/Tomatoes.md"]);
    expect(r.code).toBe(6);
    expect(r.stderr).toContain("ai_unavailable");
  });
});
