import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync } from "node:fs";
import { join } from "node:path";
import { BIN } from "../support/binary.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * PDF and DOCX text through the compiled binary (docs/documents.md): pdf.js and the extraction
 * worker are entrypoints of their own in it (scripts/build.ts), the usual trap of a single
 * binary. 1,000 notes beside the documents make the build take its rows worker, so the
 * extraction worker is started from a worker too. Build first: `bun run build`.
 */
const FIXTURES = join(import.meta.dir, "..", "..", "fixtures", "documents");

let sb: Sandbox;

async function run(args: string[]) {
  const p = Bun.spawn([BIN, ...args], { env: sb.env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/indx is missing: run `bun run build` first");
  sb = sandbox();
  for (let i = 0; i < 1000; i++) sb.write(`Notes/n${i}.md`, `# Note ${i}\n\nA note about the garden, number ${i}.\n`);
  cpSync(join(FIXTURES, "pdfjs", "knockout_groups_test.pdf"), join(sb.vault, "Papers/knockout.pdf"));
  cpSync(join(FIXTURES, "pdfjs", "encrypted-attachment.pdf"), join(sb.vault, "Papers/locked.pdf"));
  cpSync(join(FIXTURES, "python-docx", "par-known-styles.docx"), join(sb.vault, "Papers/styles.docx"));
});

afterAll(() => sb?.cleanup());

describe("documents in the compiled binary", () => {
  test("indx vault index extracts them on the rows worker's extraction worker; search finds the page; attachment text reads it", async () => {
    const built = await run(["vault", "index", "--json"]);
    expect(built.code).toBe(0);
    const report = JSON.parse(built.stdout);
    expect(report.added).toBe(1003);
    expect(report.warnings).toEqual([
      { code: "document_not_extracted", path: "Papers/locked.pdf", message: "encrypted (password-protected): its text cannot be read" },
    ]);

    const search = JSON.parse((await run(["search", '"Non-isolated Inner Sub-group"', "--json"])).stdout);
    expect(search.results[0]).toMatchObject({ path: "Papers/knockout.pdf", heading: "page=3", chunk_id: "Papers/knockout.pdf#2" });
    const docx = JSON.parse((await run(["search", '"Body Text"', "--json"])).stdout);
    expect(docx.results[0]).toMatchObject({ path: "Papers/styles.docx", heading: "Heading 1" });

    const text = await run(["attachment", "text", "Papers/knockout.pdf", "--from", "3", "--to", "3", "--format", "table"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("==> Papers/knockout.pdf#page=3 <==");
    expect(text.stdout).toContain("Nested K=false, inner I=false: sees outer content");
  });
});
