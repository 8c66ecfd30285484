import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BIN } from "../support/binary.ts";
import { type FakeAiServer, fakeEnv, startFakeAiServer } from "../support/fake-ai-server.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * End-to-end: the compiled binary loads sqlite-vec from inside itself and talks to the fake
 * Ollama / OpenAI-compatible server. Build first: `bun run build`.
 */

let sb: Sandbox;
let fake: FakeAiServer;

async function run(args: string[], env: Record<string, string> = {}) {
  // Async spawn: the fake server lives in this process and must keep answering.
  const p = Bun.spawn([BIN, ...args], { env: { ...sb.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect(stdout + stderr).not.toContain(sb.dir);
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/indx is missing: run `bun run build` first");
  sb = sandbox({}, { fromDemo: true });
  // The vectors count evenly: these tests are about embedding and fallbacks, not the measured weight.
  sb.env.INDX_SEARCH_VECTOR_WEIGHT = "1";
  fake = startFakeAiServer();
});
afterAll(() => {
  fake?.stop();
  sb?.cleanup();
});

describe("semantic search in the compiled binary", () => {
  test("vault index embeds; semantic, hybrid and related use the vectors", async () => {
    const env = fakeEnv(fake, "ollama", "fake-embed-768");
    const idx = await run(["vault", "index"], env);
    expect(idx.code).toBe(0);
    const report = idx.json();
    expect(report.embeddings).toMatchObject({ provider: "ollama", model: "fake-embed-768", dimension: 768, pending: 0, error: null });
    expect(report.embeddings.embedded).toBeGreaterThan(10);
    expect(existsSync(join(sb.dataDir, "vectors.db"))).toBe(true);

    const sem = await run(["search", "rollback", "runbook", "--mode", "semantic"], env);
    expect(sem.code).toBe(0);
    expect(sem.json().mode_used).toBe("semantic");
    expect(sem.json().results.map((r: any) => r.path)).toContain("Reference/Runbook.md");

    const hyb = await run(["search", "rollback", "runbook"], env);
    expect(hyb.json().mode_used).toBe("hybrid");
    expect(hyb.json().results[0].path).toBe("Reference/Runbook.md");
    expect(hyb.json().results[0].reason).toContain("hybrid (lexical #1");

    const rel = await run(["related", "Reference/Runbook.md"], env);
    expect(rel.code).toBe(0);
    expect(rel.json().mode_used).toBe("semantic");
    expect(rel.json().results.map((r: any) => r.path)).not.toContain("Reference/Runbook.md");

    const status = await run(["vault", "status"], env);
    expect(status.json().embeddings).toMatchObject({ state: "ready", available: true, dimension: 768 });
  });

  test("a second run embeds nothing; the OpenAI-compatible route works too", async () => {
    fake.reset();
    const again = await run(["vault", "index"], fakeEnv(fake, "ollama", "fake-embed-768"));
    expect(again.json().embeddings.embedded).toBe(0);
    expect(fake.embedRequests()).toHaveLength(0);

    const other = sandbox({}, { fromDemo: true });
    try {
      const p = Bun.spawn([BIN, "vault", "index"], { env: { ...other.env, ...fakeEnv(fake, "openai", "fake-embed-128") }, stdout: "pipe", stderr: "pipe" });
      const out = JSON.parse(await new Response(p.stdout).text());
      expect(await p.exited).toBe(0);
      expect(out.embeddings).toMatchObject({ provider: "openai", dimension: 128, error: null });
    } finally {
      other.cleanup();
    }
  });

  test("without sqlite-vec (macOS's system SQLite refuses extensions) semantic search scans exactly", async () => {
    const other = sandbox({}, { fromDemo: true });
    try {
      const env = { ...other.env, ...fakeEnv(fake, "ollama", "fake-embed-128"), INDX_SQLITE_VEC_PATH: "off" };
      const runOther = async (args: string[]) => {
        const p = Bun.spawn([BIN, ...args], { env, stdout: "pipe", stderr: "pipe" });
        const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
        return { code, stderr, json: () => JSON.parse(stdout) };
      };
      const idx = await runOther(["vault", "index"]);
      expect(idx.code).toBe(0);
      expect(idx.json().embeddings).toMatchObject({ dimension: 128, pending: 0, error: null });
      const sem = await runOther(["search", "rollback", "runbook", "--mode", "semantic"]);
      expect(sem.stderr).toBe("");
      expect(sem.json().mode_used).toBe("semantic");
      expect(sem.json().results.map((r: any) => r.path)).toContain("Reference/Runbook.md");
      expect((await runOther(["related", "Reference/Runbook.md"])).json().results.length).toBeGreaterThan(0);
    } finally {
      other.cleanup();
    }
  });

  test("provider down: index exits 0 with a warning, --require-embeddings fails, search falls back", async () => {
    const dead = startFakeAiServer();
    dead.stop();
    const env = { ...fakeEnv(fake, "ollama", "fake-embed-768"), INDX_OLLAMA_URL: dead.url };
    sb.write("Notes/Fresh.md", "# Fresh\n\nA new note about launch checklists.\n");
    const idx = await run(["vault", "index"], env);
    expect(idx.code).toBe(0);
    expect(idx.json().warnings.map((w: any) => w.code)).toContain("embeddings_failed");
    expect(idx.stderr).toContain("warning:");
    sb.write("Notes/Fresh.md", "# Fresh\n\nA new note about launch checklists, edited.\n");
    const strict = await run(["vault", "index", "--require-embeddings"], env);
    expect(strict.code).toBe(6);
    expect(strict.stderr).toContain("ai_unavailable");

    const s = await run(["search", "launch"], env);
    expect(s.code).toBe(0);
    expect(s.json().mode_used).toBe("lexical");
    expect(s.json().warnings[0].code).toBe("embeddings_unavailable");
    const sem = await run(["search", "launch", "--mode", "semantic"], env);
    expect(sem.code).toBe(6);
    expect(sem.stderr).toContain("ai_unavailable");
  }, 30_000);

  test("a changed model is index_incompatible with the fix; --reembed fixes it", async () => {
    const env = fakeEnv(fake, "ollama", "fake-embed-32");
    const sem = await run(["search", "launch", "--mode", "semantic"], env);
    expect(sem.code).toBe(6);
    expect(sem.stderr).toContain("index_incompatible");
    expect(sem.stderr).toContain("indx vault index --reembed");
    const re = await run(["vault", "index", "--reembed"], env);
    expect(re.code).toBe(0);
    expect(re.json().embeddings).toMatchObject({ model: "fake-embed-32", dimension: 32, pending: 0 });
    expect((await run(["search", "launch", "--mode", "semantic"], env)).code).toBe(0);
  });

  test("MCP stdio: background embedding of a new note, then semantic search; stdout stays protocol-only", async () => {
    const other = sandbox({}, { fromDemo: true });
    const transport = new StdioClientTransport({
      command: BIN,
      args: ["mcp"],
      env: { ...other.env, ...fakeEnv(fake, "ollama", "fake-embed-128") },
      stderr: "pipe",
    });
    const client = new Client({ name: "e2e", version: "1.0.0" });
    const errors: Error[] = [];
    client.onerror = (e) => void errors.push(e);
    try {
      await client.connect(transport);
      // The index is built after the handshake and embedded in the background: poll vault_status.
      let state = "";
      for (let i = 0; i < 100 && state !== "ready"; i++) {
        const st: any = await client.callTool({ name: "vault_status", arguments: { probe: false } });
        state = st.structuredContent?.embeddings?.state ?? "";
        if (state !== "ready") await Bun.sleep(50);
      }
      expect(state).toBe("ready");
      const res: any = await client.callTool({ name: "vault_search", arguments: { q: "rollback runbook", mode: "semantic" } });
      expect(res.isError).toBeFalsy();
      expect(res.structuredContent.mode_used).toBe("semantic");
      expect(errors).toEqual([]);
    } finally {
      await client.close();
      other.cleanup();
    }
  }, 30_000);
});
