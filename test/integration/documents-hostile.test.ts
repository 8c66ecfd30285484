import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { DocumentExtractor } from "../../src/index/build/document-extract.ts";
import type { IndexReport } from "../../src/index/build/indexer.ts";
import { linkForward } from "../../src/links/ops.ts";
import { documentRead } from "../../src/notes/document-ops.ts";
import { vaultSearch } from "../../src/search/ops.ts";
import { HOSTILE, millionPagePdf, writeHostileDocuments } from "../support/hostile-documents.ts";
import { invoke } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * The malformed-document suite (docs/documents.md, Limits): truncated, wrong magic bytes, a
 * text file named .docx, a zip bomb named .docx, a PDF of a million pages and a 200 MB file,
 * generated into a temporary vault. Each is an attachment with a warning saying why; the
 * server keeps answering while they are indexed (the longest /health gap is measured by
 * scripts/bench/documents.ts, not here); the rest of the vault is indexed as if they were not there.
 */
const FIXTURES = join(import.meta.dir, "..", "..", "fixtures", "documents");

let sb: Sandbox;
let ctx: App;
let server: RunningServer;
let report: IndexReport;
let healthAnswers = 0;

beforeAll(async () => {
  sb = sandbox({
    "Fine.md": "# Fine\n\nAn ordinary note about tomatoes. See [[million-pages.pdf#page=999999]] and [[million-pages.pdf#page=1000001]].\n",
  });
  mkdirSync(join(sb.vault, "Hostile"));
  writeHostileDocuments(sb.vault);
  copyFileSync(join(FIXTURES, "pdfjs", "rotation.pdf"), join(sb.vault, "rotation.pdf"));
  ctx = sb.context();
  server = await startServer(ctx, { host: "127.0.0.1", port: 0, watch: false, notice: () => {} });
  const admin = loadConfig({ env: sb.env }).str("server.api_key") ?? "";
  // The build runs on the index worker; /health is asked all along and must keep answering.
  const building = ctx.updateIndex({ build: true, rebuild: true });
  let done = false;
  void building.finally(() => {
    done = true;
  });
  while (!done) {
    const res = await fetch(`${server.url}/health`, { headers: { authorization: `Bearer ${admin}` } });
    if (res.ok) healthAnswers++;
    await Bun.sleep(20);
  }
  report = await building;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

const warningOf = (path: string) => report.warnings.find((w) => w.path === path);

describe("hostile documents", () => {
  test("each is a warning saying why, never a failure of the vault", () => {
    expect(warningOf(HOSTILE.truncated)).toMatchObject({ code: "document_not_extracted", message: expect.stringMatching(/not a readable PDF/) });
    expect(warningOf(HOSTILE.wrongMagic)).toMatchObject({ code: "document_not_extracted", message: expect.stringMatching(/not a readable PDF/) });
    expect(warningOf(HOSTILE.notAZip)).toMatchObject({ code: "document_not_extracted", message: expect.stringContaining("not a ZIP archive") });
    expect(warningOf(HOSTILE.zipBomb)).toMatchObject({ code: "document_not_extracted", message: expect.stringContaining("zip bomb") });
    expect(warningOf(HOSTILE.huge)).toMatchObject({ code: "document_not_extracted", message: expect.stringContaining("index.max_document_bytes") });
    expect(warningOf(HOSTILE.millionPages)).toMatchObject({
      code: "document_truncated",
      message: "only the first 2000 of its 1000000 pages are searchable (index.max_document_pages)",
    });
    expect(report.added).toBe(8);
  });

  test("the server answered all along, and the rest of the vault is indexed", async () => {
    expect(healthAnswers).toBeGreaterThan(0);
    expect((await invoke(vaultSearch, ctx, { q: "tomatoes" })).results.map((r) => r.path)).toEqual(["Fine.md"]);
    expect((await invoke(vaultSearch, ctx, { q: "landscape layout" })).results[0]?.path).toBe("rotation.pdf");
  });

  test("the million-page PDF reads its first pages, counts them all, and checks page links against the count", async () => {
    const out = await invoke(documentRead, ctx, { path: HOSTILE.millionPages, from: 1999, to: 2001 });
    expect(out.total).toBe(1_000_000);
    expect(out.sections.map((s) => s.index)).toEqual([1999, 2000]);
    expect(out.problem?.reason).toBe("truncated");
    const links = (await invoke(linkForward, ctx, { path: "Fine.md" })).links.map((l) => [l.raw, l.anchor_resolved]);
    expect(links).toEqual([
      ["[[million-pages.pdf#page=999999]]", true],
      ["[[million-pages.pdf#page=1000001]]", false],
    ]);
  });
});

describe("the extraction deadline", () => {
  test("a document past the deadline ends its worker with `timeout`; the next document gets a new worker", () => {
    // A million pages to read at a few hundred a second: far past a 3 s deadline.
    const extractor = new DocumentExtractor({ maxPages: 1_000_000, maxTextBytes: 1 << 26, timeoutMs: 3000, maxHeapBytes: 768 << 20 });
    try {
      const slow = extractor.extract(millionPagePdf(1_000_000), "pdf");
      expect(slow).toMatchObject({ problem: "timeout", sections: [], message: "its extraction took longer than 3 s" });
      const bytes = new Uint8Array(readFileSync(join(FIXTURES, "pdfjs", "hello_world_rotated.pdf")));
      expect(extractor.extract(bytes, "pdf").sections.map((s) => s.text)).toEqual(Array(5).fill("Hello world"));
    } finally {
      extractor.close();
    }
  });
});
