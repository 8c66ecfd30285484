import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { App } from "../../../src/app/context.ts";
import { loadConfig } from "../../../src/config/load.ts";
import { type RunningServer, startServer } from "../../../src/http/serve.ts";
import { vaultReindex } from "../../../src/maintenance/ops.ts";
import { McpHub } from "../../../src/mcp/hub.ts";
import { createSession, type McpSession } from "../../../src/mcp/session.ts";
import { type FakeAiServer, fakeChatEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";
import { type FakeChat, parsePassages } from "../../support/fake-chat.ts";
import { invoke } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/**
 * A model that lies on purpose (docs/decisions.md, "Claim-level grounding"): every scripted reply
 * below mixes invented prose — each lie carries the marker "hunter2" or "FABRICATED" — with real
 * quotes, wrong passages, cut quotes, confusables, invisible characters, invented reduce-step
 * points, "not supported" with text… Each runs over REST (streamed, every event read), MCP (with
 * progress notifications) and the CLI (a child process, --stream): no returned or streamed text
 * may hold a lie, what was streamed is never withdrawn, and where the reply held a true claim it
 * comes back.
 */

const MAIN = join(import.meta.dir, "..", "..", "..", "src", "main.ts");
const LIE = /hunter2|fabricated|zanzibar/i;
const DONT_KNOW = "I don't know based on the indexed vault.";

/** Long notes: summarizing them together takes map-reduce under the small prompt budget below. */
const BIG: Record<string, string> = Object.fromEntries(
  ["Alpha", "Bravo", "Charlie"].map((name) => [
    `Big/${name}.md`,
    `# ${name}\n\n${Array.from(
      { length: 14 },
      (_, i) =>
        `The ${name.toLowerCase()} team reviewed milestone ${i + 1} of the observatory plan and agreed the ${["mirror", "dome", "mount", "camera", "cooling", "cabling", "software"][i % 7]} work continues next week without changes.`,
    ).join("\n\n")}\n`,
  ]),
);

interface Quotable {
  passage: string;
  line: string;
}

/** The passages of a request and their lines long enough to quote (headings left out). */
function quotables(chat: FakeChat): Quotable[] {
  const prompt = chat.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
  return parsePassages(prompt).flatMap((p) =>
    p.text
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l.length >= 30 && !l.startsWith("#") && !l.startsWith("---"))
      .map((line) => ({ passage: p.id, line })),
  );
}

/** A citation of a quotable line; a request with none (a batch of headings) gets an invented one. */
const cite = (q: Quotable | undefined) => (q ? { passage: q.passage, quote: q.line } : { passage: "P1", quote: "a line this request did not hold at all" });
const seg = (text: string, citations: { passage: string; quote: string }[] = []) => ({ text, citations });
/** A passage id other than the one a quote is from. */
const otherThan = (qs: Quotable[], q: Quotable) => qs.find((x) => x.passage !== q.passage)?.passage ?? "P99";
/** Latin letters swapped for Cyrillic look-alikes. */
const confusable = (s: string) => s.replace(/a/g, "а").replace(/e/g, "е").replace(/o/g, "о");

type Op = "ask" | "summarize" | "map-reduce" | "toc" | "moc" | "moc-topic" | "tag";

interface Case {
  name: string;
  op: Op;
  /** The model's reply to each request; the same lie whichever step asks. */
  reply(chat: FakeChat, qs: Quotable[]): unknown;
  /** A true claim is in the reply: something must come back (not "I don't know", not empty). */
  keeps?: boolean;
  /** Streamed in this many chunks (default 3). */
  chunks?: number;
}

const ask = (
  name: string,
  segments: (qs: Quotable[]) => unknown[],
  extra: { keeps?: boolean; supported?: boolean; followups?: (qs: Quotable[]) => unknown[] } = {},
): Case => ({
  name,
  op: "ask",
  keeps: extra.keeps,
  chunks: 17,
  reply: (_chat, qs) => ({ supported: extra.supported ?? true, segments: segments(qs), followups: extra.followups?.(qs) ?? [] }),
});

const summary = (name: string, parts: (qs: Quotable[]) => Record<string, unknown[]>, keeps = false): Case => ({
  name,
  op: "summarize",
  keeps,
  reply: (_chat, qs) => ({ text: [], tldr: [], key_points: [], open_questions: [], ...parts(qs) }),
});

const CASES: Case[] = [
  // ai_ask: the issue's own case first.
  ask("the issue's case: fabricated prose carried by one genuine quote", (qs) => [
    seg("FABRICATED: the rollback is secret, the password is hunter2-zebra.", [cite(qs[0]!)]),
  ]),
  ask("a real sentence with invented prose appended in the same segment", (qs) => [
    seg(`${qs[0]!.line} FABRICATED: the password is hunter2-zebra.`, [cite(qs[0]!)]),
  ]),
  ask("invented prose inside a real sentence", (qs) => [seg(`${qs[0]!.line.slice(0, 20)} hunter2-zebra ${qs[0]!.line.slice(20)}`, [cite(qs[0]!)])]),
  ask("a segment with no citation", () => [seg("The password is hunter2-zebra.")]),
  ask("a real segment, then a lie with no citation", (qs) => [seg(qs[0]!.line, [cite(qs[0]!)]), seg("FABRICATED: also hunter2-zebra.")], { keeps: true }),
  ask(
    "a lie between two real segments, streamed in many chunks",
    (qs) => [
      seg(qs[0]!.line, [cite(qs[0]!)]),
      seg("FABRICATED: hunter2-zebra opens the vault.", [cite(qs[0]!)]),
      seg(qs[1]?.line ?? qs[0]!.line, [cite(qs[1] ?? qs[0]!)]),
    ],
    { keeps: true },
  ),
  ask("the right quote, the wrong passage", (qs) => [seg("FABRICATED: hunter2-zebra.", [{ passage: otherThan(qs, qs[0]!), quote: qs[0]!.line }])]),
  ask("a real sentence cited to the wrong passage", (qs) => [seg(`${qs[0]!.line} hunter2`, [{ passage: otherThan(qs, qs[0]!), quote: qs[0]!.line }])]),
  ask("an invented quote", () => [
    seg("FABRICATED: the rollback needs hunter2-zebra.", [{ passage: "P1", quote: "the rollback needs the hunter2-zebra password typed twice" }]),
  ]),
  ask("a quote cut mid-word", (qs) => [seg("FABRICATED hunter2 claim.", [{ passage: qs[0]!.passage, quote: qs[0]!.line.slice(3, -3) }])]),
  ask("a quote cut mid-word carrying its own sentence", (qs) => [seg(qs[0]!.line.slice(3), [{ passage: qs[0]!.passage, quote: qs[0]!.line.slice(3) }])]),
  ask("a quote in confusable letters", (qs) => [seg(`FABRICATED ${confusable(qs[0]!.line)}`, [{ passage: qs[0]!.passage, quote: confusable(qs[0]!.line) }])]),
  ask("invisible characters hide the lie's marker", (qs) => [seg("The pass\u200Bword is hunter2\u200B-zebra.", [cite(qs[0]!)])]),
  ask("a lie in non-breaking spaces and full-width letters", (qs) => [seg("The\u00A0password\u00A0is ｈｕｎｔｅｒ2.", [cite(qs[0]!)])]),
  ask("supported false, with a lie anyway", (qs) => [seg("FABRICATED: hunter2-zebra.", [cite(qs[0]!)])], { supported: false }),
  ask("supported false, with a real segment and a lie", (qs) => [seg(qs[0]!.line, [cite(qs[0]!)]), seg("hunter2-zebra", [cite(qs[0]!)])], { supported: false }),
  ask("an unknown passage id", (qs) => [seg("FABRICATED hunter2.", [{ passage: "P99", quote: qs[0]!.line }])]),
  ask("a passage id in lower case with an invented quote", () => [
    seg("FABRICATED hunter2.", [{ passage: "p1", quote: "nothing of the kind is written in the notes" }]),
  ]),
  ask("a quote too short to prove anything", () => [seg("FABRICATED: hunter2.", [{ passage: "P1", quote: "the" }])]),
  ask("a quote with words added", (qs) => [seg("FABRICATED: hunter2.", [{ passage: qs[0]!.passage, quote: `${qs[0]!.line} and hunter2-zebra` }])]),
  ask("a number that is in no passage", (qs) => [seg(`${qs[0]!.line.replace(/[.!?]$/, "")} within 9731 minutes, says hunter2.`, [cite(qs[0]!)])]),
  ask("a bullet list hiding a lie", (qs) => [seg(`- ${qs[0]!.line}`, [cite(qs[0]!)]), seg("- FABRICATED hunter2-zebra", [cite(qs[0]!)])], { keeps: true }),
  ask("an empty citation list on every segment", () => [seg("FABRICATED one."), seg("hunter2 two.")]),
  ask(
    "many true segments and one lie at the end",
    (qs) => [...qs.slice(0, 4).map((q) => seg(q.line, [cite(q)])), seg("FABRICATED: and hunter2-zebra.", [cite(qs[0]!)])],
    { keeps: true },
  ),
  ask("a lie in the follow-up questions", (qs) => [seg(qs[0]!.line, [cite(qs[0]!)])], {
    keeps: true,
    followups: (qs) => [seg("Is the password hunter2-zebra?", [cite(qs[0]!)])],
  }),
  {
    name: "the issue's case in the reply shape of before: a whole answer with one real citation",
    op: "ask",
    reply: (_c, qs) => ({ answer: "FABRICATED: the password is hunter2-zebra.", supported: true, confidence: "high", citations: [cite(qs[0]!)] }),
  },
  {
    name: "an extra field carrying the lie",
    op: "ask",
    keeps: true,
    reply: (_c, qs) => ({ supported: true, segments: [seg(qs[0]!.line, [cite(qs[0]!)])], followups: [], answer: "FABRICATED hunter2", note: "hunter2-zebra" }),
  },
  {
    name: "prose around the JSON",
    op: "ask",
    reply: (_c, qs) => `FABRICATED hunter2-zebra. ${JSON.stringify({ supported: true, segments: [seg("hunter2", [cite(qs[0]!)])], followups: [] })}`,
  },
  {
    name: "the reply cut off after a lie",
    op: "ask",
    reply: (_c, qs) =>
      `{"supported": true, "segments": [{"text": ${JSON.stringify(qs[0]!.line)}, "citations": [${JSON.stringify(cite(qs[0]!))}]}, {"text": "FABRICATED hunter2", "citations": [${JSON.stringify(cite(qs[0]!))}]}, {"text": "more hunter2`,
  },
  {
    name: "segments before supported false",
    op: "ask",
    chunks: 20,
    reply: (_c, qs) => `{"segments": [${JSON.stringify(seg("FABRICATED hunter2", [cite(qs[0]!)]))}], "supported": false, "followups": []}`,
  },

  // ai_summarize: every part of it.
  summary("the text: a lie carried by a real quote", (qs) => ({ text: [seg("FABRICATED: hunter2-zebra is the launch code.", [cite(qs[0]!)])] })),
  summary("the text: a real segment and a lie with no citation", (qs) => ({ text: [seg(qs[0]!.line, [cite(qs[0]!)]), seg("FABRICATED hunter2.")] }), true),
  summary("the tl;dr: a lie", (qs) => ({ text: [seg(qs[0]!.line, [cite(qs[0]!)])], tldr: [seg("FABRICATED tl;dr: hunter2.", [cite(qs[0]!)])] }), true),
  summary(
    "a key point with an invented quote",
    (qs) => ({
      text: [seg(qs[0]!.line, [cite(qs[0]!)])],
      key_points: [seg("FABRICATED point hunter2.", [{ passage: qs[0]!.passage, quote: "a point nobody ever wrote down anywhere" }])],
    }),
    true,
  ),
  summary(
    "an open question that is a lie",
    (qs) => ({ text: [seg(qs[0]!.line, [cite(qs[0]!)])], open_questions: [seg("Why is the password hunter2-zebra?", [cite(qs[0]!)])] }),
    true,
  ),
  summary("the text: the right quote, the wrong passage", (qs) => ({
    text: [seg(`FABRICATED ${qs[0]!.line}`, [{ passage: otherThan(qs, qs[0]!), quote: qs[0]!.line }])],
  })),
  summary("every part a lie", (qs) => ({
    text: [seg("FABRICATED text hunter2.", [cite(qs[0]!)])],
    tldr: [seg("FABRICATED tldr hunter2.")],
    key_points: [seg("FABRICATED point hunter2.", [cite(qs[0]!)])],
    open_questions: [seg("FABRICATED question hunter2?", [cite(qs[0]!)])],
  })),

  // ai_summarize, map-reduce: the reduce step is verified like any other.
  {
    name: "map-reduce: the reduce step invents a point citing an intermediate key point",
    op: "map-reduce",
    keeps: true,
    reply: (chat, qs) =>
      /Key point 1:/.test(chat.text)
        ? {
            text: [seg(qs[0]!.line, [cite(qs[0]!)])],
            tldr: [],
            key_points: [seg("FABRICATED reduce point hunter2.", [{ passage: "K1", quote: qs[0]!.line }])],
            open_questions: [],
          }
        : { key_points: qs.slice(0, 2).map((q) => seg(q.line, [cite(q)])) },
  },
  {
    name: "map-reduce: the reduce step quotes a passage it was not shown",
    op: "map-reduce",
    reply: (chat, qs) =>
      /Key point 1:/.test(chat.text)
        ? {
            text: [seg("FABRICATED hunter2 reduce.", [{ passage: "P2", quote: "an invented sentence that the reduce step never saw" }])],
            tldr: [],
            key_points: [],
            open_questions: [],
          }
        : { key_points: qs.slice(0, 2).map((q) => seg(q.line, [cite(q)])) },
  },
  {
    name: "map-reduce: the map step lies, the reduce step repeats it",
    op: "map-reduce",
    reply: (chat, qs) =>
      /Key point 1:/.test(chat.text)
        ? { text: [seg("FABRICATED map lie hunter2.", qs.slice(0, 1).map(cite))], tldr: [], key_points: [], open_questions: [] }
        : { key_points: [seg("FABRICATED map lie hunter2.", [cite(qs[0]!)])] },
  },
  {
    name: "map-reduce: a true reduce text wrapped around a lie",
    op: "map-reduce",
    keeps: true,
    reply: (chat, qs) =>
      /Key point 1:/.test(chat.text)
        ? { text: [seg(qs[0]!.line, [cite(qs[0]!)]), seg(`${qs[0]!.line} FABRICATED hunter2.`, [cite(qs[0]!)])], tldr: [], key_points: [], open_questions: [] }
        : { key_points: qs.slice(0, 2).map((q) => seg(q.line, [cite(q)])) },
  },

  // ai_toc: section descriptions and a map of content's descriptions.
  {
    name: "toc: a section description that is a lie with a real quote",
    op: "toc",
    reply: (_c, qs) => ({ sections: qs.map((q) => ({ passage: q.passage, description: "FABRICATED hunter2 section.", citations: [cite(q)] })) }),
  },
  {
    name: "toc: a description with no citation",
    op: "toc",
    reply: (_c, qs) => ({ sections: qs.map((q) => ({ passage: q.passage, description: "hunter2-zebra", citations: [] })) }),
  },
  {
    name: "moc: note descriptions that lie",
    op: "moc",
    reply: (chat, qs) => ({
      groups: [...chat.text.matchAll(/<group key="([^"]+)">/g)].map((m) => ({
        key: m[1]!,
        title: "FABRICATED hunter2 group",
        items: qs.map((q) => ({ passage: q.passage, description: "FABRICATED hunter2 note.", citations: [cite(q)] })),
      })),
    }),
  },
  {
    name: "moc: topic names that lie",
    op: "moc-topic",
    keeps: true,
    reply: (chat, qs) =>
      chat.system.includes("Group the notes into topics")
        ? { topics: [{ title: "FABRICATED hunter2 topic", passages: [...new Set(qs.map((q) => q.passage))] }] }
        : { groups: [...chat.text.matchAll(/<group key="([^"]+)">/g)].map((m) => ({ key: m[1]!, title: "hunter2-zebra", items: [] })) },
  },

  // ai_tag: a rationale is prose too.
  {
    name: "tag: a real tag whose rationale is a lie",
    op: "tag",
    keeps: true,
    reply: (_c, qs) => ({ tags: [{ tag: "ops", confidence: 0.9, rationale: "FABRICATED: the password is hunter2-zebra.", citations: [cite(qs[0])] }] }),
  },
  {
    name: "tag: a lie as the tag's rationale around a real quote",
    op: "tag",
    keeps: true,
    reply: (_c, qs) => ({ tags: [{ tag: "runbook", confidence: 0.9, rationale: `${qs[0]?.line ?? ""} hunter2`, citations: [cite(qs[0])] }] }),
  },
];

// --- the three surfaces --------------------------------------------------------------------------

let fake: FakeAiServer;
let sb: Sandbox;
let ctx: App;
let server: RunningServer;
let token: string;
let hub: McpHub;
let mcp: Client;
let session: McpSession;

beforeAll(async () => {
  fake = startFakeAiServer();
  sb = sandbox(BIG, { fromDemo: true });
  Object.assign(sb.env, fakeChatEnv(fake), { INDX_AI_MAX_INPUT_TOKENS: "1500" });
  ctx = sb.context();
  await invoke(vaultReindex, ctx, {});
  server = await startServer(ctx, { host: "127.0.0.1", port: 0, notice: () => {}, watch: false });
  token = loadConfig({ env: sb.env }).str("server.api_key")!;
  hub = new McpHub(ctx);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  session = await createSession(hub, { scopes: new Set(["vault:read", "vault:write"]) });
  await session.server.connect(serverSide);
  mcp = new Client({ name: "lying-model", version: "0" });
  await mcp.connect(clientSide);
});

afterAll(async () => {
  await mcp?.close();
  await session?.close();
  hub?.close();
  await server?.stop();
  ctx?.close();
  fake.stop();
  sb.cleanup();
});

/** The operation, its input and its CLI words for a case. */
function call(op: Op): { tool: string; route: string; input: Record<string, unknown>; argv: string[] } {
  switch (op) {
    case "ask":
      return {
        tool: "ai_ask",
        route: "/v1/ai/ask",
        input: { question: "How do we roll back the release?", cache: false },
        argv: ["ai", "ask", "How do we roll back the release?", "--no-cache", "--stream"],
      };
    case "summarize":
      return {
        tool: "ai_summarize",
        route: "/v1/ai/summarize",
        input: { scope: { kind: "paths", paths: ["Reference/Runbook.md"] }, include: ["tldr", "key_points", "open_questions"], cache: false },
        argv: ["ai", "summarize", "--scope-paths", "Reference/Runbook.md", "--no-cache", "--stream"],
      };
    case "map-reduce":
      return {
        tool: "ai_summarize",
        route: "/v1/ai/summarize",
        input: { scope: { kind: "glob", path_glob: "Big/**" }, cache: false },
        argv: ["ai", "summarize", "--scope-glob", "Big/**", "--no-cache", "--stream"],
      };
    case "toc":
      return {
        tool: "ai_toc",
        route: "/v1/ai/toc",
        input: { mode: "note", path: "Reference/Runbook.md", include_descriptions: true, cache: false },
        argv: ["ai", "toc", "--note", "Reference/Runbook.md", "--descriptions", "--no-cache", "--stream"],
      };
    case "moc-topic":
      return {
        tool: "ai_toc",
        route: "/v1/ai/toc",
        input: { mode: "moc", scope: { kind: "glob", path_glob: "Reference/**" }, group_by: "topic", cache: false },
        argv: ["ai", "toc", "--scope-glob", "Reference/**", "--group-by", "topic", "--no-cache", "--stream"],
      };
    case "tag":
      return {
        tool: "ai_tag",
        route: "/v1/ai/tag",
        input: { scope: { kind: "paths", paths: ["Reference/Runbook.md"] }, cache: false },
        argv: ["ai", "tag", "--scope-paths", "Reference/Runbook.md", "--no-cache", "--json"],
      };
    case "moc":
      return {
        tool: "ai_toc",
        route: "/v1/ai/toc",
        input: { mode: "moc", scope: { kind: "glob", path_glob: "Reference/**" }, include_summaries: true, cache: false },
        argv: ["ai", "toc", "--scope-glob", "Reference/**", "--no-cache", "--stream"],
      };
  }
}

/** What a surface gave back: every text it showed, streamed or final. */
interface Seen {
  surface: string;
  /** The streamed deltas, in order. */
  partials: string[];
  /** The final result (null on an error). */
  result: Record<string, unknown> | null;
  /** Everything, as sent. */
  raw: string;
}

/** The prose of a result: what a lie could hide in. */
function prose(op: Op, result: Record<string, unknown> | null): string {
  if (!result) return "";
  if (op === "ask") return String(result.answer ?? "");
  if (op === "summarize" || op === "map-reduce") {
    const s = result.summary as { text: string; tldr?: string; key_points?: string[]; open_questions?: string[] };
    return [s.text, s.tldr ?? "", ...(s.key_points ?? []), ...(s.open_questions ?? [])].join("\n");
  }
  if (op === "tag") return JSON.stringify(result.suggestions ?? []);
  return String(result.toc_markdown ?? "");
}

async function viaRest(c: ReturnType<typeof call>): Promise<Seen> {
  const res = await fetch(`${server.url}${c.route}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(c.input),
  });
  const raw = await res.text();
  const events = raw
    .split("\n\n")
    .filter((b) => b.includes("data: "))
    .map((b) => JSON.parse(/^data: (.+)$/m.exec(b)![1]!) as { type: string; delta?: string; data?: Record<string, unknown> });
  return {
    surface: "REST",
    partials: events.filter((e) => e.type === "ai.partial").map((e) => e.delta!),
    result: events.find((e) => e.type === "ai.complete")?.data ?? null,
    raw,
  };
}

async function viaMcp(c: ReturnType<typeof call>): Promise<Seen> {
  const messages: string[] = [];
  const result = await mcp.callTool({ name: c.tool, arguments: c.input }, undefined, { onprogress: (p) => void messages.push(String(p.message ?? "")) });
  const events = messages.flatMap((m) => {
    try {
      return [JSON.parse(m) as { type: string; delta?: string }];
    } catch {
      return [];
    }
  });
  return {
    surface: "MCP",
    partials: events.filter((e) => e.type === "ai.partial").map((e) => e.delta!),
    result: result.isError ? null : (result.structuredContent as Record<string, unknown>),
    raw: `${messages.join("\n")}\n${JSON.stringify(result)}`,
  };
}

async function viaCli(c: ReturnType<typeof call>): Promise<Seen> {
  const p = Bun.spawn(["bun", MAIN, ...c.argv], { env: sb.env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  const lines = stdout.split("\n").flatMap((l) => {
    try {
      return [JSON.parse(l) as { type: string; delta?: string; data?: Record<string, unknown> }];
    } catch {
      return [];
    }
  });
  return {
    surface: "CLI",
    partials: lines.filter((e) => e.type === "ai.partial").map((e) => e.delta!),
    result: lines.find((e) => e.type === "ai.complete")?.data ?? whole(stdout),
    raw: `${stdout}\n${stderr}`,
  };
}

/** The CLI's --json output: one JSON document. */
function whole(stdout: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(stdout) as Record<string, unknown>;
    return typeof v === "object" && v !== null && !("type" in v) ? v : null;
  } catch {
    return null;
  }
}

describe("a lying model", () => {
  test("the suite holds at least 40 scripted replies", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });

  for (const c of CASES)
    test(`${c.op}: ${c.name}`, async () => {
      fake.reset();
      fake.onChat((chat) => ({ content: c.reply(chat, quotables(chat)) as Record<string, unknown>, chunks: c.chunks ?? 3 }));
      const req = call(c.op);
      for (const seen of [await viaRest(req), await viaMcp(req), await viaCli(req)]) {
        const where = `${seen.surface}: ${c.name}`;
        expect(fake.chats.length, where).toBeGreaterThan(0);
        if (c.op === "map-reduce")
          expect(
            fake.chats.some((ch) => ch.system.includes("List the key points")),
            where,
          ).toBe(true);
        // No lie anywhere it could be read: streamed, returned, or in an error.
        expect(LIE.test(seen.raw) ? `${where}\n${seen.raw.slice(0, 2000)}` : "", where).toBe("");
        // Each surface ran the operation: a result, or the error a lie earns (never a usage error).
        expect(seen.result !== null || /ai_grounding_failed|ai_provider_error/.test(seen.raw) ? "" : seen.raw.slice(0, 500), where).toBe("");
        const text = prose(c.op, seen.result);
        // What was streamed is never withdrawn: the deltas are the final text, or a prefix of an error's.
        if (seen.result && (c.op === "ask" || c.op === "summarize" || c.op === "map-reduce")) {
          const streamed = seen.partials.join("");
          if (c.op === "ask") expect(streamed, where).toBe(text);
          else expect(streamed, where).toBe((seen.result.summary as { text: string }).text);
        }
        if (c.keeps && c.op === "tag") expect(text, where).toContain('"tag"');
        else if (c.keeps) {
          expect(seen.result, where).not.toBeNull();
          expect(text.trim().length, where).toBeGreaterThan(0);
          expect(text, where).not.toBe(DONT_KNOW);
        }
      }
    }, 60_000);
});
