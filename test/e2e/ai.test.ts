import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { BIN } from "../support/binary.ts";
import { type FakeAiServer, fakeChatEnv, startFakeAiServer } from "../support/fake-ai-server.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** The AI commands of the compiled binary against the fake chat server. Build first: `bun run build`. */

let sb: Sandbox;
let fake: FakeAiServer;

async function run(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawn([BIN, ...args], { env: { ...sb.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect(stdout + stderr).not.toContain(sb.dir);
  return { code, stdout, stderr };
}

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error("dist/indx is missing: run `bun run build` first");
  sb = sandbox({}, { fromDemo: true });
  fake = startFakeAiServer();
  expect((await run(["vault", "index"])).code).toBe(0);
});
afterAll(() => {
  fake?.stop();
  sb?.cleanup();
});

describe("indx ai", () => {
  test("ask --stream writes NDJSON events ending with ai.complete, whose data is the plain answer", async () => {
    const env = fakeChatEnv(fake);
    const plain = await run(["ai", "ask", "How", "do", "we", "roll", "back", "the", "release?", "--no-cache"], env);
    expect(plain.code).toBe(0);
    const answer = JSON.parse(plain.stdout);
    expect(answer.citations[0].path).toBe("Reference/Runbook.md");

    const streamed = await run(["ai", "ask", "How do we roll back the release?", "--no-cache", "--stream"], env);
    expect(streamed.code).toBe(0);
    const lines = streamed.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toContain("ai.citation");
    expect(lines.at(-1).type).toBe("ai.complete");
    expect(lines.at(-1).data).toEqual(answer);
  });

  test("toc of one note calls no model; without a provider the model commands exit 6 and nothing is sent", async () => {
    fake.reset();
    const toc = await run(["ai", "toc", "--note", "Projects/Apollo Launch.md"], fakeChatEnv(fake));
    expect(toc.code).toBe(0);
    expect(JSON.parse(toc.stdout).toc_markdown).toContain("Risks");
    expect(fake.chats).toHaveLength(0);

    const off = await run(["ai", "summarize", "--scope-paths", "Projects/Apollo Launch.md"]);
    expect(off.code).toBe(6);
    expect(off.stderr).toContain("ai_unavailable");
    expect(off.stderr).toContain("INDX_AI_MODEL");
    expect((await run(["ai", "status"])).code).toBe(0);
    expect(fake.requests).toHaveLength(0);
    expect(fake.chats).toHaveLength(0);
  });

  test("over MCP stdio, ai tools appear with a chat model and answer with verified citations", async () => {
    const transport = new StdioClientTransport({ command: BIN, args: ["mcp"], env: { ...sb.env, ...fakeChatEnv(fake) }, stderr: "ignore" });
    const client = new Client({ name: "e2e", version: "1" });
    await client.connect(transport);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toContain("ai_ask");
      const r = await client.callTool({ name: "ai_ask", arguments: { question: "How do we roll back the release?", cache: false } });
      expect(r.isError).toBeFalsy();
      expect((r.structuredContent as { citations: { path: string }[] }).citations[0]!.path).toBe("Reference/Runbook.md");
    } finally {
      await client.close();
    }
  });

  test("over MCP stdio, ai://summary reads a grounded summary and its subscription fires once after an edit in scope", async () => {
    const transport = new StdioClientTransport({ command: BIN, args: ["mcp"], env: { ...sb.env, ...fakeChatEnv(fake) }, stderr: "ignore" });
    const client = new Client({ name: "e2e", version: "1" });
    await client.connect(transport);
    const uri = "ai://summary/paths/Reference%2FRunbook.md";
    const seen: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void seen.push(n.params.uri));
    try {
      const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
      expect(templates).toContain("ai://summary/{kind}/{value}{?mode,limit,include_linked}");
      const content = (await client.readResource({ uri })).contents[0]!;
      const read = JSON.parse("text" in content ? content.text : "");
      expect(read.citations[0].path).toBe("Reference/Runbook.md");

      await client.subscribeResource({ uri });
      const patch = { path: "Reference/Runbook.md", ops: [{ op: "append_body", markdown: "Rollback takes ten minutes at most.\n" }] };
      expect((await client.callTool({ name: "note_patch", arguments: patch })).isError).toBeFalsy();
      const end = performance.now() + 10_000;
      while (seen.length === 0 && performance.now() < end) await Bun.sleep(25);
      await Bun.sleep(2_000);
      expect(seen).toEqual([uri]);
    } finally {
      await client.close();
    }
  }, 20_000);
});
