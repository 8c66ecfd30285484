import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { aiStatus } from "../../../src/ai/ops/status-ops.ts";
import { vaultReindex } from "../../../src/maintenance/ops.ts";
import { type FakeAiServer, fakeChatEnv, fakeEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";
import { invoke } from "../../support/ops.ts";
import { type Surfaces, startSurfaces } from "../../support/surfaces.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/**
 * The AI operations as the CLI, REST and MCP offer them: flags that the help names work, a write
 * guard is never read as absent, what needs no model runs without one, doctor and ai_status say
 * what the AI roles are, and every ai.invocation event says who caused it.
 */
let fake: FakeAiServer;
let sb: Sandbox;
let s: Surfaces;

beforeAll(async () => {
  fake = startFakeAiServer();
  sb = sandbox({}, { fromDemo: true });
  Object.assign(sb.env, fakeChatEnv(fake), fakeEnv(fake, "ollama", "fake-embed-32"));
  const ctx = sb.context();
  await invoke(vaultReindex, ctx, {});
  ctx.close();
  s = await startSurfaces(sb);
});

beforeEach(() => {
  fake.chats.length = 0;
});

afterAll(async () => {
  await s.close();
  fake.stop();
  sb.cleanup();
});

const json = (out: { stdout: string }) => JSON.parse(out.stdout);
/** Tests that start the CLI as a child process (a second or more each on a loaded machine). */
const CLI_TIMEOUT = 60_000;

describe("indx ai ask flags", () => {
  test(
    "--top-k and --mode reach ai_ask",
    async () => {
      const out = await s.cli(["ai", "ask", "How do we roll back the release?", "--top-k", "2", "--mode", "lexical", "--no-cache", "--json"]);
      expect(out.stderr).toBe("");
      expect(out.code).toBe(0);
      const answer = json(out);
      expect(answer.retrieved.length).toBeGreaterThan(0);
      expect(answer.retrieved.length).toBeLessThanOrEqual(2);
      expect(answer.warnings.map((w: { code: string }) => w.code)).not.toContain("embeddings_unavailable");
    },
    CLI_TIMEOUT,
  );

  test(
    "an invalid --top-k is a validation error naming the flag",
    async () => {
      const out = await s.cli(["ai", "ask", "anything", "--top-k", "0"]);
      expect(out.code).toBe(2);
      expect(out.stderr).toContain("--top-k");
    },
    CLI_TIMEOUT,
  );
});

describe("--cache false", () => {
  test(
    "is taken as the help offers it: the model is asked each time, no cache hit",
    async () => {
      const args = ["ai", "summarize", "--scope-paths", "Reference/Runbook.md", "--json"];
      expect((await s.cli([...args])).code).toBe(0);
      const before = fake.chats.length;
      for (const flag of [["--cache", "false"], ["--cache=false"]]) {
        const out = await s.cli([...args, ...flag]);
        expect(out.stderr).toBe("");
        expect(out.code).toBe(0);
        expect(json(out).warnings.map((w: { code: string }) => w.code)).not.toContain("ai_cache_hit");
      }
      expect(fake.chats.length).toBe(before + 2);
      // And --cache true is a cache hit, as the bare flag is.
      const hit = await s.cli([...args, "--cache", "true"]);
      expect(json(hit).warnings.map((w: { code: string }) => w.code)).toContain("ai_cache_hit");
    },
    CLI_TIMEOUT,
  );
});

describe("ai toc", () => {
  test(
    "--note without descriptions needs no model: it runs with no AI configured",
    async () => {
      const bare = sandbox({ "Plan.md": "# Plan\n\n## Goals\n\nShip.\n\n## Risks\n\nNone.\n" });
      try {
        const ctx = bare.context();
        await invoke(vaultReindex, ctx, {});
        ctx.close();
        const p = Bun.spawn(["bun", `${import.meta.dir}/../../../src/main.ts`, "ai", "toc", "--note", "Plan.md"], {
          env: bare.env,
          stdout: "pipe",
          stderr: "pipe",
        });
        const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
        expect(stderr).toBe("");
        expect(code).toBe(0);
        expect(stdout).toContain("[[Plan#Goals|Goals]]");
        // Descriptions do need the model, and say so.
        const d = Bun.spawn(["bun", `${import.meta.dir}/../../../src/main.ts`, "ai", "toc", "--note", "Plan.md", "--descriptions"], {
          env: bare.env,
          stdout: "pipe",
          stderr: "pipe",
        });
        expect(await d.exited).toBe(6);
      } finally {
        bare.cleanup();
      }
    },
    CLI_TIMEOUT,
  );

  test('write.if_match "" is refused (validation_failed), never read as "no condition": the note is not replaced', async () => {
    const target = "Reference/Glossary.md";
    const before = readFileSync(`${sb.vault}/${target}`, "utf8");
    const res = await s.rest("POST", "/v1/ai/toc", { mode: "note", path: "Reference/Runbook.md", write: { path: target, if_match: "" } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_failed");
    expect(readFileSync(`${sb.vault}/${target}`, "utf8")).toBe(before);
  });

  test(
    "--write takes --if-match and --if-not-exists",
    async () => {
      const target = "Maps/Runbook TOC.md";
      const base = ["ai", "toc", "--note", "Reference/Runbook.md", "--write", target, "--json"];
      const created = await s.cli([...base, "--if-not-exists"]);
      expect(created.code).toBe(0);
      const etag = json(created).written.etag;
      // It exists now: --if-not-exists refuses, a stale --if-match refuses, the current one replaces.
      const again = await s.cli([...base, "--if-not-exists"]);
      expect(again.code).not.toBe(0);
      expect(again.stderr).toContain("already_exists");
      const stale = await s.cli([...base, "--if-match", "0000000000000000"]);
      expect(stale.code).not.toBe(0);
      expect(stale.stderr).toContain("etag_mismatch");
      const replaced = await s.cli([...base, "--if-match", etag]);
      expect(replaced.stderr).toBe("");
      expect(replaced.code).toBe(0);
      // --if-match without --write is a mistake, said so.
      const alone = await s.cli(["ai", "toc", "--note", "Reference/Runbook.md", "--if-match", etag]);
      expect(alone.code).toBe(2);
      expect(alone.stderr).toContain("--write");
    },
    CLI_TIMEOUT,
  );
});

describe("what the AI roles are", () => {
  test(
    "doctor probes the chat model: it answers, or the check fails with the fix",
    async () => {
      const good = await s.cli(["doctor", "--json"]);
      const chat = json(good).checks.find((c: { name: string }) => c.name === "chat");
      expect(chat).toMatchObject({ status: "ok" });
      expect(chat.message).toContain("fake-chat answers");
      expect(fake.chats.length).toBe(1);

      const p = Bun.spawn(["bun", `${import.meta.dir}/../../../src/main.ts`, "doctor", "--json"], {
        env: { ...sb.env, INDX_AI_MODEL: "no-such-model" },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stdout, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
      expect(code).toBe(1);
      const missing = JSON.parse(stdout).checks.find((c: { name: string }) => c.name === "chat");
      expect(missing).toMatchObject({ status: "fail", fix: "ollama pull no-such-model" });
    },
    CLI_TIMEOUT,
  );

  test("ai_status gives the embeddings dimension", async () => {
    const status = await invoke(aiStatus, s.ctx, {});
    expect(status.embeddings).toEqual({
      provider: "ollama",
      model: "fake-embed-32",
      price: { input_per_mtok: 0, output_per_mtok: 0, source: "free" },
      dimension: 32,
    });
  });
});

describe("an upstream 429", () => {
  test(
    "is rate_limited with the provider's Retry-After on REST (HTTP 429 and its header) and the CLI (exit 6), not a 502",
    async () => {
      fake.scriptChat({ status: 429, retryAfter: "30" });
      const res = await s.rest("POST", "/v1/ai/ask", { question: "How do we roll back the release?", cache: false });
      expect(res.status).toBe(429);
      expect(res.headers.get("retry-after")).toBe("30");
      expect(res.body.error).toMatchObject({ code: "rate_limited", details: { retry_after_s: 30, upstream_status: 429 } });
      fake.scriptChat({ status: 429, retryAfter: "30" });
      const out = await s.cli(["ai", "ask", "How do we roll back the release?", "--no-cache"]);
      expect(out.code).toBe(6);
      expect(out.stderr).toContain("rate_limited");
    },
    CLI_TIMEOUT,
  );
});

describe("ai.invocation says who caused it", () => {
  const invocations = () =>
    readFileSync(`${sb.dataDir}/events.log`, "utf8")
      .split("\n")
      .filter((l) => l.includes('"ai.invocation"'))
      .map((l) => JSON.parse(l) as { ai: { surface?: string; token_id?: string } });

  test(
    "the surface, and over REST the token's id (never the token)",
    async () => {
      const question = { question: "How do we roll back the release?", cache: false };
      const before = invocations().length;
      expect((await s.rest("POST", "/v1/ai/ask", question)).status).toBe(200);
      const client = await s.mcp();
      await client.callTool({ name: "ai_ask", arguments: question });
      expect((await s.cli(["ai", "ask", question.question, "--no-cache", "--json"])).code).toBe(0);
      const seen = invocations().slice(before);
      expect(seen.map((e) => e.ai.surface)).toEqual(["rest", "mcp", "cli"]);
      expect(seen[0]!.ai.token_id).toBe("admin");
      expect(seen[1]!.ai.token_id).toBeUndefined();
      const log = readFileSync(`${sb.dataDir}/events.log`, "utf8");
      expect(log).not.toContain(sb.env.INDX_SERVER_API_KEY ?? "no key in env");
    },
    CLI_TIMEOUT,
  );
});
