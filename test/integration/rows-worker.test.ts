import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type FileRows, fileRows } from "../../src/index/build/file-rows.ts";
import { runIndex } from "../../src/index/build/indexer.ts";
import { decodeRows, encodeRows } from "../../src/index/build/rows-codec.ts";
import { InlineRows, WorkerRows } from "../../src/index/build/rows-pipeline.ts";
import { storedNoteRecord } from "../../src/index/storage/note-text.ts";
import { type NoteValues, RECORD_AT } from "../../src/index/storage/rows.ts";
import { scanVault } from "../../src/vault/scan.ts";
import type { Vault } from "../../src/vault/vault.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * The rows worker must change how fast a build is, never what it builds: the same vault indexed
 * with the worker and on the calling thread gives the same rows, down to the full-text index's
 * own pages. The vault spans several batches (and so reuses the worker's slots), and one batch
 * outgrows its slot.
 */
let sb: Sandbox;
let vault: Vault;

const MAX_NOTE_BYTES = 3_000_000;

beforeAll(() => {
  sb = sandbox({}, { fromDemo: true });
  cpSync(join(import.meta.dir, "..", "..", "fixtures", "kepano"), join(sb.vault, "kepano"), { recursive: true });
  for (let i = 0; i < 900; i++) sb.write(`gen/${i % 7}/Note ${i}.md`, generatedNote(i));
  // Two notes of 2 MB in one batch: more than a 4 MB slot holds.
  for (const i of [0, 1]) sb.write(`big/Big ${i}.md`, `# Big ${i}\n\n${"a long line of words to index [[Note 3]]\n".repeat(50_000)}`);
  sb.write("big/Too large.md", "x".repeat(MAX_NOTE_BYTES + 1));
  sb.write("odd/Binary.md", new Uint8Array([35, 32, 66, 0, 1, 2, 255]));
  sb.write("odd/Bad frontmatter.md", "---\n: [unclosed\n---\n# Bad\n");
  sb.write("odd/Empty.md", "");
  vault = sb.context({ "index.max_note_bytes": MAX_NOTE_BYTES }).vault;
});

afterAll(() => sb.cleanup());

function generatedNote(i: number): string {
  const props = [
    `title: "Note ${i}"`,
    `rank: ${i % 3 === 0 ? i / 7 : i}`,
    `due: 2024-0${(i % 9) + 1}-1${i % 10}`,
    `up: "[[Note ${(i * 7) % 900}]]"`,
    "tags: [gen, Mixed/Case]",
  ];
  const body = [
    `# Note ${i}`,
    `Links to [[Note ${(i + 1) % 900}]], [[Note ${(i + 2) % 900}#Part|part two]], ![[Note ${i % 50}]] and [a page](<gen/${i % 7}/Note ${i}.md>).`,
    "## Part",
    `Wörter mit Umlauten, 日本語のテキスト ${i}, emoji 🎉 and a lone tag #topic/${i % 11}. ^block${i}`,
    `- [ ] a task ${i}`,
    `- [x] done ${i}`,
    "```js",
    `const x = ${i}; // [[not a link]]`,
    "```",
  ];
  return `---\n${props.join("\n")}\n---\n${body.join("\n")}\n`;
}

/** Rows as a rows worker hands them over: the full-text body as its UTF-8 bytes. */
function bodyAsBytes(rows: FileRows | null): FileRows | null {
  const fts = rows?.note?.fts;
  if (!rows?.note || !fts) return rows;
  return { ...rows, note: { ...rows.note, fts: [fts[0], fts[1], fts[2], fts[3], new TextEncoder().encode(fts[4] as string)] } };
}

/** Rows with the note's record as notes.text stores it. */
function recordStored(rows: FileRows | null): FileRows | null {
  const values = rows?.note?.note;
  const record = values?.[RECORD_AT];
  if (!rows?.note || !values || !record) return rows;
  const stored = [...values] as NoteValues;
  stored[RECORD_AT] = storedNoteRecord(record);
  return { ...rows, note: { ...rows.note, note: stored } };
}

/** Every row of every table, the full-text shadow tables included, in a stable order. */
function dumpIndex(path: string): Record<string, unknown[]> {
  const db = new Database(path, { readonly: true });
  try {
    const tables = db
      .query<{ name: string }, []>(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT IN ('meta') AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name",
      )
      .all()
      .map((t) => t.name);
    return Object.fromEntries(tables.map((t) => [t, db.query(`SELECT * FROM "${t}" ORDER BY 1, 2`).all()]));
  } finally {
    db.close();
  }
}

function build(rowsWorker: boolean): Record<string, unknown[]> {
  rmSync(vault.dataDir, { recursive: true, force: true });
  const report = runIndex(vault, { rowsWorker });
  expect(report.added).toBeGreaterThan(1000);
  return dumpIndex(vault.indexPath);
}

describe("the rows worker", () => {
  test("a build with it writes the same index as a build without", () => {
    const inline = build(false);
    const threaded = build(true);
    expect(Object.keys(threaded)).toEqual(Object.keys(inline));
    expect(inline.notes_fts_data!.length).toBeGreaterThan(10);
    for (const table of Object.keys(inline)) expect({ table, rows: threaded[table] }).toEqual({ table, rows: inline[table] });
  });

  test("a first build leaves notes_fts in one segment, merging as FTS5 does by default afterwards", () => {
    build(true);
    const db = new Database(vault.indexPath, { readonly: true });
    try {
      // The load stops FTS5's merging (IndexStore.beginBulkLoad); later writes must merge again.
      const config = Object.fromEntries(
        db
          .query<{ k: string; v: number }, []>("SELECT k, v FROM notes_fts_config WHERE k != 'version'")
          .all()
          .map((r) => [r.k, r.v]),
      );
      expect(config).toEqual({ automerge: 4, crisismerge: 16 });
      expect(db.query<{ n: number }, []>("SELECT count(DISTINCT segid) AS n FROM notes_fts_idx").get()!.n).toBe(1);
    } finally {
      db.close();
    }
  });

  test("hands over each batch as the calling thread computes it", () => {
    const files = scanVault(vault.root, vault.exclusions).files;
    const options = { root: vault.root, maxNoteBytes: MAX_NOTE_BYTES, documents: null, storedEtag: () => null };
    const inline = new InlineRows(options);
    const ends = Array.from({ length: Math.ceil(files.length / 250) }, (_, k) => Math.min(files.length, (k + 1) * 250));
    const threaded = new WorkerRows(options, files, ends);
    try {
      for (let i = 0; i < files.length; i += 250) {
        const batch = files.slice(i, i + 250);
        // The worker compresses the records it has time for; compressed, both sides are equal.
        expect(threaded.next(batch).map(recordStored)).toEqual(inline.next(batch).map(bodyAsBytes).map(recordStored));
      }
      expect(threaded.threaded).toBe(true);
    } finally {
      threaded.close();
    }
  });

  test("rows survive the encoding exactly, nulls, bigints and blobs included", () => {
    const files = scanVault(vault.root, vault.exclusions).files.filter((f) => f.path.startsWith("odd/") || f.path.startsWith("gen/1/"));
    const rows: (FileRows | null)[] = [null, ...files.map((f) => fileRows(vault.root, f, { maxNoteBytes: MAX_NOTE_BYTES }))];
    const { buffer, length } = encodeRows(rows, new Uint8Array(16), (size) => new Uint8Array(size));
    expect(decodeRows(buffer.subarray(0, length))).toEqual(rows.map(bodyAsBytes));
  });
});
