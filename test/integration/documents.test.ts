import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../../src/app/context.ts";
import { activateContext } from "../../src/context/ops.ts";
import { linkBacklinks, linkBrokenAnchors, linkForward } from "../../src/links/ops.ts";
import { vaultStatus } from "../../src/maintenance/ops.ts";
import { documentRead } from "../../src/notes/document-ops.ts";
import { chunkGet } from "../../src/notes/retrieval-ops.ts";
import { related, vaultSearch } from "../../src/search/ops.ts";
import { invoke } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * PDF and DOCX text in the index (docs/documents.md), on real files nobody here wrote
 * (fixtures/documents/README.md): a sentence of a given page is found on that page, a DOCX
 * section under its heading, and a file without text is an attachment with a warning saying why.
 */
const FIXTURES = join(import.meta.dir, "..", "..", "fixtures", "documents");

let sb: Sandbox;
let ctx: App;
let warnings: { code: string; path: string; message: string }[];

beforeAll(async () => {
  sb = sandbox({
    "Reading.md": [
      "# Reading",
      "",
      "The essay [[issue918.pdf]] and [[knockout_groups_test.pdf#page=3]], embedded: ![[rotation.pdf#page=2]].",
      "Past the last page: [[knockout_groups_test.pdf#page=4]] and [[issue918.pdf#page=2&selection=1,0,1,4]].",
      "A heading of a DOCX: [[par-known-styles.docx#Heading 1]], and one it lacks: [[par-known-styles.docx#Heading 9]].",
      "",
    ].join("\n"),
  });
  for (const folder of ["pdfjs", "mammoth", "python-docx"]) cpSync(join(FIXTURES, folder), join(sb.vault, "Papers", folder), { recursive: true });
  ctx = sb.context();
  warnings = (await ctx.updateIndex({ build: true })).warnings;
});

afterAll(() => {
  ctx.close();
  sb.cleanup();
});

const search = (query: string) => invoke(vaultSearch, ctx, { q: query, limit: 5 });

describe("document text in search", () => {
  test("a sentence of page 3 finds the PDF at page 3, the form Obsidian links with", async () => {
    const out = await search('"Non-isolated Inner Sub-group"');
    const hit = out.results[0]!;
    expect(hit.path).toBe("Papers/pdfjs/knockout_groups_test.pdf");
    expect(hit.heading).toBe("page=3");
    expect(hit.chunk_id).toBe("Papers/pdfjs/knockout_groups_test.pdf#2");
    expect(hit.line).toBe(3);
    expect(hit.snippet).toContain("**Inner**");
    const chunk = await invoke(chunkGet, ctx, { id: hit.chunk_id });
    expect(chunk.heading).toBe("page=3");
    expect(chunk.content).toContain("Nested K=false, inner I=false: sees outer content");
    expect(chunk.content_type).toBe("text/plain");
  });

  test("each page of a rotated and a landscape PDF is its own section", async () => {
    const out = await search("landscape layout");
    expect(out.results[0]!.chunk_id).toBe("Papers/pdfjs/rotation.pdf#1");
    expect((await search('"Document 1 Page 2"')).results[0]!.heading).toBe("page=2");
  });

  test("CJK text, a form's labels and a PDF's metadata title are searchable", async () => {
    expect((await search("電線接続端子部")).results[0]!.path).toBe("Papers/pdfjs/issue16063.pdf");
    expect((await search("AcroForm TextField")).results[0]!.path).toBe("Papers/pdfjs/file_pdfjs_form.pdf");
    // The essay's metadata has an empty title: its file name stands in, as a note's does.
    const essay = (await search("greengrocer")).results[0]!;
    expect(essay.path).toBe("Papers/pdfjs/issue918.pdf");
    expect(essay.title).toBe("issue918");
    expect((await search("AcroForm TextField")).results[0]!.title).toBe("Test Form");
  });

  test("a DOCX is sectioned by its headings; tables, footnotes and text boxes are text", async () => {
    const body = (await search('"Body Text"')).results[0]!;
    expect(body.path).toBe("Papers/python-docx/par-known-styles.docx");
    expect(body.heading_path).toEqual(["Heading 1"]);
    expect((await search('"Bottom right"')).results[0]!.path).toBe("Papers/mammoth/tables.docx");
    const note = (await search("tachyon")).results.map((r) => `${r.path} ${r.heading}`);
    expect(note).toContain("Papers/mammoth/footnotes.docx Notes");
    expect((await search('"python-docx was here too"')).results[0]!.title).toBe("python-docx was here!");
    const box = await invoke(chunkGet, ctx, { id: "Papers/mammoth/text-box.docx#0" });
    expect(box.content).toBe("Datum plane");
  });

  test("an encrypted PDF, an image-only PDF and a picture-only DOCX are attachments with a warning saying why", () => {
    const why = (path: string) => warnings.find((w) => w.path === path);
    expect(why("Papers/pdfjs/encrypted-attachment.pdf")).toMatchObject({ code: "document_not_extracted", message: expect.stringContaining("encrypted") });
    expect(why("Papers/pdfjs/images_1bit_grayscale.pdf")).toMatchObject({ code: "document_not_extracted", message: expect.stringContaining("no OCR") });
    expect(why("Papers/mammoth/tiny-picture.docx")).toMatchObject({ code: "document_not_extracted", message: expect.stringContaining("no text") });
    expect(warnings.filter((w) => w.code.startsWith("document")).length).toBe(3);
  });
});

describe("vault_status", () => {
  test("counts the searchable documents and keeps saying why the others are not", async () => {
    const status = await invoke(vaultStatus, ctx, { probe: false });
    expect(status.index.counts?.documents).toBe(14);
    expect(status.warnings.filter((w) => w.code === "document_not_extracted").map((w) => w.path)).toEqual([
      "Papers/mammoth/tiny-picture.docx",
      "Papers/pdfjs/encrypted-attachment.pdf",
      "Papers/pdfjs/images_1bit_grayscale.pdf",
    ]);
  });
});

describe("document_read", () => {
  test("reads a PDF by page range, each page with the anchor that links to it", async () => {
    const out = await invoke(documentRead, ctx, { path: "Papers/pdfjs/knockout_groups_test.pdf", from: 2, to: 3 });
    expect(out).toMatchObject({ format: "pdf", unit: "page", total: 3, title: "knockout_groups_test" });
    expect(out.sections.map((x) => [x.index, x.anchor])).toEqual([
      [2, "page=2"],
      [3, "page=3"],
    ]);
    expect(out.sections[1]!.text).toContain("Non-isolated Inner Sub-group");
    expect(out.next_from).toBeUndefined();
    expect(out.etag).toMatch(/^[0-9a-f]{16}$/);
    const first = await invoke(documentRead, ctx, { path: "Papers/pdfjs/knockout_groups_test.pdf", to: 1 });
    expect(first.sections.map((x) => x.index)).toEqual([1]);
    expect(first.next_from).toBe(2);
  });

  test("stops at the budget: whole pages, or the first cut to fit, and says where to read on", async () => {
    const whole = await invoke(documentRead, ctx, { path: "Papers/pdfjs/knockout_groups_test.pdf" });
    const firstBytes = new TextEncoder().encode(whole.sections[0]!.text).length;
    const two = await invoke(documentRead, ctx, { path: "Papers/pdfjs/knockout_groups_test.pdf", budget_bytes: firstBytes + 10 });
    expect(two.sections.map((x) => x.index)).toEqual([1]);
    expect(two.next_from).toBe(2);
    expect(two.truncated).toBeUndefined();
    const cut = await invoke(documentRead, ctx, { path: "Papers/pdfjs/knockout_groups_test.pdf", budget_bytes: 40 });
    expect(cut.truncated).toBe(true);
    expect(cut.used_bytes).toBeLessThanOrEqual(40);
    expect(whole.sections[0]!.text.startsWith(cut.sections[0]!.text)).toBe(true);
  });

  test("a DOCX reads by heading section; a file without text says why; a note or an image is refused", async () => {
    const docx = await invoke(documentRead, ctx, { path: "Papers/python-docx/par-known-styles.docx" });
    expect(docx).toMatchObject({ format: "docx", unit: "section", total: 2 });
    expect(docx.sections.map((x) => x.anchor)).toEqual([null, "Heading 1"]);
    const locked = await invoke(documentRead, ctx, { path: "Papers/pdfjs/encrypted-attachment.pdf" });
    expect(locked.sections).toEqual([]);
    expect(locked.problem?.reason).toBe("encrypted");
    await expect(invoke(documentRead, ctx, { path: "Reading.md" })).rejects.toMatchObject({ code: "path_invalid" });
    await expect(invoke(documentRead, ctx, { path: "Papers/mammoth/LICENSE" })).rejects.toMatchObject({ code: "not_found" });
    await expect(invoke(documentRead, ctx, { path: "Papers/nothing.pdf" })).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("related and activate_context point at the page", () => {
  test("a context for a page's words opens the PDF at that page; a note linking to a page brings that page", async () => {
    const byQuery = await invoke(activateContext, ctx, { query: "Nested reference group sees outer content" });
    const pdf = byQuery.notes.find((n) => n.path === "Papers/pdfjs/knockout_groups_test.pdf")!;
    expect(pdf.passages[0]).toMatchObject({ chunk_id: "Papers/pdfjs/knockout_groups_test.pdf#2", heading: "page=3", start_line: 3 });
    const byNote = await invoke(activateContext, ctx, { path: "Reading.md", hops: 1 });
    const linked = byNote.notes.find((n) => n.path === "Papers/pdfjs/knockout_groups_test.pdf");
    expect(linked?.reason).toMatchObject({ kind: "link", from: "Reading.md" });
    expect(linked?.passages[0]?.heading).toBe("page=3");
  });

  test("related to a page finds the other pages and documents like it, each at its best section", async () => {
    const out = await invoke(related, ctx, { id: "Papers/pdfjs/doc_1_3_pages.pdf#1" });
    expect(out.results.length).toBeGreaterThan(0);
    for (const r of out.results) expect(r.chunk_id.startsWith(`${r.path}#`)).toBe(true);
    const pdfHits = out.results.filter((r) => r.path.endsWith(".pdf"));
    expect(pdfHits.length).toBeGreaterThan(0);
    expect(pdfHits.every((r) => /^page=\d+$/.test(r.heading ?? ""))).toBe(true);
  });
});

describe("links into documents", () => {
  test("page links resolve, a page past the last is a broken anchor, and DOCX headings are checked as a note's", async () => {
    const forward = await invoke(linkForward, ctx, { path: "Reading.md" });
    const byRaw = new Map(forward.links.map((l) => [l.raw, l]));
    expect(byRaw.get("[[knockout_groups_test.pdf#page=3]]")).toMatchObject({ target: "Papers/pdfjs/knockout_groups_test.pdf", anchor_resolved: true });
    expect(byRaw.get("![[rotation.pdf#page=2]]")).toMatchObject({ target: "Papers/pdfjs/rotation.pdf", anchor_resolved: true, embed: true });
    expect(byRaw.get("[[knockout_groups_test.pdf#page=4]]")?.anchor_resolved).toBe(false);
    expect(byRaw.get("[[par-known-styles.docx#Heading 1]]")?.anchor_resolved).toBe(true);
    const broken = await invoke(linkBrokenAnchors, ctx, { limit: 100 });
    expect(broken.anchors.map((a) => `${a.raw} ${a.kind}`)).toEqual([
      "[[knockout_groups_test.pdf#page=4]] page",
      "[[issue918.pdf#page=2&selection=1,0,1,4]] page",
      "[[par-known-styles.docx#Heading 9]] heading",
    ]);
  });

  test("backlinks into a document list the notes that link or embed it", async () => {
    const back = await invoke(linkBacklinks, ctx, { path: "Papers/pdfjs/rotation.pdf" });
    expect(back.backlinks.map((b) => `${b.source} ${b.raw} ${b.embed}`)).toEqual(["Reading.md ![[rotation.pdf#page=2]] true"]);
  });
});

describe("documents are indexed incrementally", () => {
  test("an unchanged vault extracts nothing; a renamed PDF takes its text from the cache by content hash", async () => {
    expect((await ctx.updateIndex({ full: true })).changed).toEqual([]);
    // The cache entry of the essay's bytes says something the PDF does not: reading it proves no extraction ran.
    const cacheDir = join(sb.dataDir, "documents");
    const essayEtag = readdirSync(cacheDir).find((name) => {
      const doc = JSON.parse(Bun.zstdDecompressSync(readFileSync(join(cacheDir, name))).toString());
      return doc.sections[0]?.text.includes("greengrocer");
    })!;
    const cached = JSON.parse(Bun.zstdDecompressSync(readFileSync(join(cacheDir, essayEtag))).toString());
    cached.sections[0].text += " quixotic marmalade";
    writeFileSync(join(cacheDir, essayEtag), Bun.zstdCompressSync(Buffer.from(JSON.stringify(cached))));
    renameSync(join(sb.vault, "Papers/pdfjs/issue918.pdf"), join(sb.vault, "Papers/Essay.pdf"));
    const report = await ctx.updateIndex({ full: true });
    expect(report.addedPaths).toEqual(["Papers/Essay.pdf"]);
    expect(report.deletedPaths).toEqual(["Papers/pdfjs/issue918.pdf"]);
    expect((await search("quixotic marmalade")).results[0]!.path).toBe("Papers/Essay.pdf");
    // Once no file has those bytes, a full pass drops their cache entry.
    rmSync(join(sb.vault, "Papers/Essay.pdf"));
    await ctx.updateIndex({ full: true });
    expect(readdirSync(cacheDir)).not.toContain(essayEtag);
    expect(readdirSync(cacheDir).length).toBeGreaterThan(5);
  });
});

describe("index.documents", () => {
  test("none leaves PDFs and DOCX files plain attachments: no text, no warning", async () => {
    const off = sandbox();
    cpSync(join(FIXTURES, "pdfjs"), join(off.vault, "Papers"), { recursive: true });
    Object.assign(off.env, { INDX_DOCUMENTS: "none" });
    const app = off.context();
    try {
      const report = await app.updateIndex({ build: true });
      expect(report.warnings).toEqual([]);
      expect((await invoke(vaultSearch, app, { q: "landscape layout" })).results).toEqual([]);
      await expect(invoke(documentRead, app, { path: "Papers/rotation.pdf" })).rejects.toMatchObject({ code: "not_found" });
    } finally {
      app.close();
      off.cleanup();
    }
  });
});
