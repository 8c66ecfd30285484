import { getDocumentProxy } from "unpdf";
import { type ExtractedDocument, type ExtractLimits, failed } from "./document-types.ts";

// biome-ignore lint/suspicious/noControlCharactersInRegex: these are what it removes.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/** Whether the heap has outgrown its bound: checked between pages. */
export type OverBudget = () => boolean;

/**
 * A PDF's text, one section per page, through pdf.js (unpdf's build of it, which needs no worker
 * of its own and no canvas: docs/decisions.md, "Document text: unpdf and a DOCX reader of our
 * own"). Pages past `maxPages` are counted, not read. A PDF whose pages hold no text at all is
 * image-only: indx does no OCR.
 */
export async function pdfText(bytes: Uint8Array, limits: ExtractLimits, overBudget: OverBudget): Promise<ExtractedDocument> {
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    pdf = await getDocumentProxy(bytes, { verbosity: 0, disableFontFace: true, stopAtErrors: false });
  } catch (err) {
    const name = err instanceof Error ? err.name : "";
    if (name === "PasswordException") return failed("pdf", "encrypted", "encrypted (password-protected): its text cannot be read");
    return failed("pdf", "malformed", `not a readable PDF (${reason(err)})`);
  }
  try {
    const pages = pdf.numPages;
    const title = await pdfTitle(pdf);
    const read = Math.min(pages, limits.maxPages);
    const sections: ExtractedDocument["sections"] = [];
    let textBytes = 0;
    let any = false;
    for (let n = 1; n <= read; n++) {
      if (overBudget()) return failed("pdf", "memory", `its extraction needed more than ${mb(limits.maxHeapBytes)} of memory`, pages);
      let text = "";
      try {
        const page = await pdf.getPage(n);
        const content = await page.getTextContent();
        for (const item of content.items) if ("str" in item) text += item.str + (item.hasEOL ? "\n" : "");
        page.cleanup();
      } catch {
        // A broken page leaves its own text out, not the rest.
      }
      // Control characters are what a font without a Unicode map gives for its quotes and dashes: they say nothing.
      text = text
        .replace(CONTROL, "")
        .replace(/[ \t]+\n/g, "\n")
        .trim();
      if (text) any = true;
      textBytes += text.length;
      if (textBytes > limits.maxTextBytes)
        return {
          ...done(sections),
          problem: "truncated",
          message: `its text passed ${mb(limits.maxTextBytes)} at page ${n}: the pages after it are not searchable`,
        };
      sections.push({ headingPath: [`page=${n}`], text, at: n });
    }
    if (!any && pages > 0) return failed("pdf", "image_only", "no text layer (a scanned or image-only PDF; indx does no OCR)", pages);
    function done(s: ExtractedDocument["sections"]): ExtractedDocument {
      return { format: "pdf", title, outline: [], sections: s, pages, problem: null, message: null };
    }
    if (read < pages)
      return { ...done(sections), problem: "truncated", message: `only the first ${read} of its ${pages} pages are searchable (index.max_document_pages)` };
    return done(sections);
  } finally {
    await pdf.loadingTask.destroy().catch(() => undefined);
  }
}

async function pdfTitle(pdf: Awaited<ReturnType<typeof getDocumentProxy>>): Promise<string | null> {
  try {
    const { info } = await pdf.getMetadata();
    const title = info && typeof info === "object" && "Title" in info ? info.Title : null;
    return typeof title === "string" && title.trim() ? title.trim().slice(0, 300) : null;
  } catch {
    return null;
  }
}

function reason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/\s+/g, " ").slice(0, 120) || "unknown error";
}

export function mb(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}
