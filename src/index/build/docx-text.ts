import type { DocumentSection, ExtractedDocument, ExtractLimits } from "./document-types.ts";
import { failed } from "./document-types.ts";
import { ZipEntries, ZipError } from "./zip-entries.ts";

/**
 * A DOCX's text, one section per heading as a note's (docs/documents.md): paragraphs of
 * word/document.xml in order (table cells are paragraphs too), headings told by their style
 * ("heading N" in word/styles.xml, or an outline level), footnotes and endnotes in a last section
 * of their own. The title is the core properties' title, else the first heading.
 */
export function docxText(bytes: Uint8Array, limits: ExtractLimits): ExtractedDocument {
  try {
    const zip = new ZipEntries(bytes, limits.maxTextBytes);
    const body = zip.text("word/document.xml");
    if (body === null) return failed("docx", "malformed", "not a Word document (it has no word/document.xml)");
    const styles = headingStyles(zip.text("word/styles.xml") ?? "");
    const paragraphs = paragraphsOf(body, styles);
    const notes = ["word/footnotes.xml", "word/endnotes.xml"].flatMap((part) =>
      paragraphsOf(zip.text(part) ?? "", styles).filter((p) => p.text.trim() && p.level === 0),
    );
    const sections: DocumentSection[] = [];
    const outline: ExtractedDocument["outline"] = [];
    const stack: { level: number; text: string }[] = [];
    let current: DocumentSection | null = null;
    paragraphs.forEach((p, i) => {
      if (p.level > 0 && p.text.trim()) {
        const text = p.text.trim();
        outline.push({ level: p.level, text });
        while (stack.length && (stack.at(-1)?.level ?? 0) >= p.level) stack.pop();
        stack.push({ level: p.level, text });
        current = { headingPath: stack.map((h) => h.text), text: "", at: i + 1 };
        sections.push(current);
        return;
      }
      if (!current) {
        current = { headingPath: [], text: "", at: i + 1 };
        sections.push(current);
      }
      current.text += current.text ? `\n${p.text}` : p.text;
    });
    for (const s of sections) s.text = s.text.trim();
    if (notes.length) sections.push({ headingPath: ["Notes"], text: notes.map((p) => p.text).join("\n"), at: paragraphs.length + 1 });
    const kept = sections.filter((s) => s.text.trim() || s.headingPath.length);
    const title = coreTitle(zip.text("docProps/core.xml") ?? "") ?? outline[0]?.text ?? null;
    if (!kept.some((s) => s.text.trim() || s.headingPath.length)) return { ...failed("docx", "image_only", "no text (only images or empty)"), title };
    return { format: "docx", title, outline, sections: kept, pages: 0, problem: null, message: null };
  } catch (err) {
    if (err instanceof ZipError && err.message.includes("zip bomb")) return failed("docx", "too_large", err.message);
    if (err instanceof ZipError) return failed("docx", "malformed", `not a readable DOCX: ${err.message}`);
    return failed("docx", "malformed", "not a readable DOCX");
  }
}

interface Paragraph {
  text: string;
  /** 1–9 for a heading, 0 for body text. */
  level: number;
}

const TAG = /<(\/?)([\w:]+)([^>]*?)(\/?)>|([^<]+)/g;

/** The paragraphs of a WordprocessingML part, with their heading level. */
function paragraphsOf(xml: string, headings: Map<string, number>): Paragraph[] {
  const out: Paragraph[] = [];
  let text = "";
  let level = 0;
  let inText = false;
  let depth = 0;
  // A text box or drawing is written twice, its mc:Choice and its mc:Fallback: the fallback is skipped.
  let fallback = 0;
  for (const m of xml.matchAll(TAG)) {
    const [, close, name, attrs, selfClose, chars] = m;
    if (name === "mc:Fallback" && !selfClose) {
      fallback += close ? -1 : 1;
      continue;
    }
    if (fallback > 0) continue;
    if (chars !== undefined) {
      if (inText) text += decodeXml(chars);
      continue;
    }
    if (name === "w:p") {
      if (close) {
        depth--;
        if (depth === 0) out.push({ text, level });
      } else if (!selfClose) {
        if (depth === 0) {
          text = "";
          level = 0;
        }
        depth++;
      } else if (depth === 0) out.push({ text: "", level: 0 });
    } else if (name === "w:t") inText = !close && !selfClose;
    else if (!close && (name === "w:tab" || name === "w:br" || name === "w:cr")) text += name === "w:tab" ? "\t" : "\n";
    else if (!close && name === "w:pStyle") level = headings.get(attr(attrs ?? "", "w:val") ?? "") ?? level;
    else if (!close && name === "w:outlineLvl") {
      const n = Number(attr(attrs ?? "", "w:val"));
      if (Number.isInteger(n) && n >= 0 && n < 9) level = n + 1;
    }
  }
  return out;
}

/** Style id → heading level, for the paragraph styles named "heading N" (or "Title", as level 1). */
function headingStyles(xml: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of xml.matchAll(/<w:style\b([^>]*)>([\s\S]*?)<\/w:style>/g)) {
    const id = attr(m[1] ?? "", "w:styleId");
    const name = /<w:name\b[^>]*w:val="([^"]*)"/.exec(m[2] ?? "")?.[1]?.toLowerCase() ?? "";
    const heading = /^heading\s*(\d)$/.exec(name);
    if (id && heading) out.set(id, Number(heading[1]));
    else if (id && name === "title") out.set(id, 1);
  }
  // Documents written without styles.xml still use the built-in ids.
  for (let n = 1; n <= 9; n++) if (![...out.values()].includes(n)) out.set(`Heading${n}`, n);
  return out;
}

function coreTitle(xml: string): string | null {
  const title = /<dc:title>([\s\S]*?)<\/dc:title>/.exec(xml)?.[1];
  const text = title ? decodeXml(title).trim() : "";
  return text ? text.slice(0, 300) : null;
}

function attr(attrs: string, name: string): string | null {
  return new RegExp(`${name}="([^"]*)"`).exec(attrs)?.[1] ?? null;
}

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function decodeXml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (all, e: string) => {
    if (e[0] === "#") {
      const code = e[1] === "x" || e[1] === "X" ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "";
    }
    return ENTITIES[e] ?? all;
  });
}
