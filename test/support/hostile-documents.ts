import { closeSync, copyFileSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { deflateRawSync } from "node:zlib";

/**
 * The malformed documents of the hostile suite (docs/documents.md, Limits), generated into a
 * folder (never stored in the repository): each must end as an attachment with a warning saying
 * why, without harm to the rest of the vault. Shared by test/integration/documents-hostile.test.ts
 * and scripts/bench/documents.ts.
 */
export const HOSTILE = {
  truncated: "Hostile/truncated.pdf",
  wrongMagic: "Hostile/wrong-magic.pdf",
  notAZip: "Hostile/not-a-zip.docx",
  zipBomb: "Hostile/zip-bomb.docx",
  millionPages: "Hostile/million-pages.pdf",
  huge: "Hostile/huge.pdf",
} as const;

const FIXTURES = join(import.meta.dir, "..", "..", "fixtures", "documents");

/** Writes every hostile file under `root` (a vault); the 200 MB one is sparse. */
export function writeHostileDocuments(root: string, opts: { hugeBytes?: number } = {}): void {
  const essay = readFileSync(join(FIXTURES, "pdfjs", "issue918.pdf"));
  writeFileSync(join(root, HOSTILE.truncated), essay.subarray(0, Math.floor(essay.length / 2)));
  copyFileSync(join(FIXTURES, "mammoth", "LICENSE"), join(root, HOSTILE.wrongMagic));
  writeFileSync(join(root, HOSTILE.notAZip), "PK but not really a zip archive, only text that starts like one.\n");
  writeFileSync(join(root, HOSTILE.zipBomb), zipBomb(160 * 1024 * 1024));
  writeFileSync(join(root, HOSTILE.millionPages), millionPagePdf(1_000_000));
  const fd = openSync(join(root, HOSTILE.huge), "w");
  try {
    writeSync(fd, "%PDF-1.7\n");
    // A hole up to the last byte: the file reads as 200 MB and takes no room on disk.
    writeSync(fd, "\n%%EOF\n", (opts.hugeBytes ?? 200 * 1024 * 1024) - 7);
  } finally {
    closeSync(fd);
  }
}

/**
 * A DOCX whose word/document.xml inflates to `bytes` of paragraphs from a few hundred KB, and
 * whose headers claim it is small (a bomb lies about its size).
 */
export function zipBomb(bytes: number): Uint8Array {
  const paragraph = "<w:p><w:r><w:t>boom</w:t></w:r></w:p>";
  const head = '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
  const block = Buffer.from(paragraph.repeat(Math.ceil((1024 * 1024) / paragraph.length)));
  // Deflated in one go from a repeated block: the input is built once, the output is small.
  const body = Buffer.concat([Buffer.from(head), ...Array.from({ length: Math.ceil(bytes / block.length) }, () => block)]);
  const deflated = deflateRawSync(body, { level: 9 });
  return zipOf([{ name: "word/document.xml", data: deflated, claimedSize: 1024 }]);
}

interface ZipPart {
  name: string;
  data: Uint8Array;
  claimedSize: number;
}

/** A ZIP archive of deflated parts (method 8), with the sizes the caller claims. */
function zipOf(parts: ZipPart[]): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const p of parts) {
    const name = Buffer.from(p.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(p.data.length, 18);
    local.writeUInt32LE(p.claimedSize, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(p.data.length, 20);
    central.writeUInt32LE(p.claimedSize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, Buffer.from(p.data));
    centrals.push(central, name);
    offset += 30 + name.length + p.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * A PDF of `pages` pages in about 12 KB: a page tree of a thousand references to one node, which
 * holds a thousand references to one page, whose text says which document it is.
 */
export function millionPagePdf(pages: number): Uint8Array {
  const fanout = Math.ceil(Math.sqrt(pages));
  const inner = Math.ceil(pages / fanout);
  const content = "BT /F1 12 Tf 72 720 Td (One page of a million, all alike.) Tj ET";
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Count ${fanout * inner} /Kids [${" 3 0 R".repeat(fanout)} ] >>`,
    `<< /Type /Pages /Count ${inner} /Kids [${" 4 0 R".repeat(inner)} ] >>`,
    "<< /Type /Page /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /Font << /F1 6 0 R >> >> >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}
