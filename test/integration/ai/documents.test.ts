import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { aiAsk } from "../../../src/ai/ops/ask/ask-ops.ts";
import type { App } from "../../../src/app/context.ts";
import { etagOf } from "../../../src/core/hash.ts";
import { vaultReindex } from "../../../src/maintenance/ops.ts";
import { type FakeAiServer, fakeChatEnv, fakeEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";
import { type FakeChat, parsePassages } from "../../support/fake-chat.ts";
import { invoke } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/**
 * Citations into a PDF (docs/documents.md): the model reads a page as a passage, a citation
 * carries the page and holds only when its quote is on that page's extracted text at the file's
 * etag; a lying model's quote into the PDF is dropped. Deny globs keep a PDF from the model as
 * they keep a note.
 */
const FIXTURES = join(import.meta.dir, "..", "..", "..", "fixtures", "documents", "pdfjs");
const PDF = "Papers/knockout_groups_test.pdf";
const PAGE_3 = "Nested K=false, inner I=false: sees outer content";
const PAGE_2 = "Direct: each rect is an independent KO element";

let fake: FakeAiServer;
let sb: Sandbox;
let ctx: App;

beforeAll(async () => {
  fake = startFakeAiServer();
  sb = sandbox({ "Notes/Transparency.md": "# Transparency\n\nOur notes on knockout groups and isolated groups in PDF transparency.\n" });
  cpSync(join(FIXTURES, "knockout_groups_test.pdf"), join(sb.vault, PDF));
  Object.assign(sb.env, fakeChatEnv(fake));
  ctx = sb.context();
  await invoke(vaultReindex, ctx, {});
});

afterEach(() => fake.reset());

afterAll(() => {
  ctx.close();
  fake.stop();
  sb.cleanup();
});

/** The id of the passage that is page `page` of the PDF in this request. */
function pageId(chat: FakeChat, page: number): string {
  const prompt = chat.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
  const p = parsePassages(prompt).find((x) => x.path === PDF && x.heading === `page=${page}`);
  if (!p) throw new Error(`page ${page} of the PDF was not among the passages: ${prompt.slice(0, 3000)}`);
  return p.id;
}

const answer = (text: string, passage: string, quote: string) => ({
  content: { supported: true, segments: [{ text, citations: [{ passage, quote }] }], followups: [] },
});

describe("ai_ask over a PDF", () => {
  test("the model reads pages as passages; a citation carries the page, its anchor and the file's etag", async () => {
    fake.onChat((chat) => answer("The inner group sees the outer content.", pageId(chat, 3), PAGE_3));
    const out = await invoke(aiAsk, ctx, { question: "Which nested reference group sees outer content?", cache: false });
    expect(out.citations).toHaveLength(1);
    const c = out.citations[0]!;
    expect(c).toMatchObject({ path: PDF, page: 3, anchor: "page=3", line: 3, snippet: PAGE_3 });
    expect(c.etag).toBe(etagOf(new Uint8Array(await Bun.file(join(sb.vault, PDF)).arrayBuffer())));
    expect(out.answer).toContain("outer content");
    // The passage header the model read names the page.
    expect(fake.chats[0]!.text).toContain(`${PDF} § page=3`);
  });

  test("a fabricated quote into the PDF, or a quote of another page, is dropped with citation_invalid", async () => {
    fake.onChat((chat) => answer("The knockout group is FABRICATED.", pageId(chat, 3), "the knockout group renders every rectangle twice over"));
    const lie = await invoke(aiAsk, ctx, { question: "Which nested reference group sees outer content?", cache: false });
    expect(lie.citations).toEqual([]);
    expect(lie.answer).not.toContain("FABRICATED");
    expect(lie.warnings).toContainEqual(expect.objectContaining({ code: "citation_invalid", path: PDF }));

    // Page 2's sentence is in the PDF, but not on page 3: the page is what is verified.
    fake.onChat((chat) => answer("Each rect is its own element.", pageId(chat, 3), PAGE_2));
    const wrongPage = await invoke(aiAsk, ctx, { question: "Which nested reference group sees outer content?", cache: false });
    expect(wrongPage.citations).toEqual([]);
    expect(wrongPage.warnings.map((w) => w.code)).toContain("citation_invalid");
  });
});

describe("deny globs cover documents", () => {
  test("a denied PDF's text never reaches the model", async () => {
    const denied = sandbox({ "Notes/Reading.md": "# Reading\n\nWhat the greengrocer sign means, in my own words: obedience.\n" });
    cpSync(join(FIXTURES, "issue918.pdf"), join(denied.vault, "Private/Essay.pdf"));
    Object.assign(denied.env, fakeEnv(fake), fakeChatEnv(fake), { INDX_AI_DENY_GLOBS: "Private/**" });
    const app = denied.context();
    try {
      fake.reset();
      // Indexing embeds every allowed section: the denied PDF's pages must not be among them.
      await invoke(vaultReindex, app, {});
      await app.embeddings.idle();
      expect(fake.received.length).toBeGreaterThan(0);
      const out = await invoke(aiAsk, app, { question: "Why does the greengrocer display the sign Workers of the World Unite?", cache: false });
      expect(out.retrieved.map((r) => r.path)).not.toContain("Private/Essay.pdf");
      const sent = fake.received.join("\n");
      // Words only the essay has: its author and the line its sign carries.
      expect(sent).not.toContain("Avram Lyon");
      expect(sent).not.toContain("petty merchant");
      expect(out.warnings.map((w) => w.code)).toContain("globs_excluded");
    } finally {
      app.close();
      denied.cleanup();
    }
  });
});
