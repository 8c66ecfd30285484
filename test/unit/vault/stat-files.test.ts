import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StatPool } from "../../../src/vault/stat-files.ts";
import { NOT_A_FILE, UNREADABLE } from "../../../src/vault/stat-protocol.ts";

const dir = mkdtempSync(join(tmpdir(), "indx-stat-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a scan of 12,000 files, shared with the stat worker, gets every file's own size and mtime", () => {
  const files = Array.from({ length: 40 }, (_, i) => join(dir, `${i} ünï 日本 ${"x".repeat(i)}.md`));
  files.forEach((f, i) => {
    writeFileSync(f, "y".repeat(i * 13));
  });
  mkdirSync(join(dir, "folder"));
  const odd = [join(dir, "folder"), join(dir, "missing.md")];
  // The walk finds a file at a time; past 10,000 the pool starts its worker and posts it each chunk found.
  const paths = Array.from({ length: 12_000 }, (_, i) => (i % 997 === 5 ? odd[i % 2]! : files[i % files.length]!));
  const pool = new StatPool();
  try {
    const found: string[] = [];
    for (const p of paths) {
      found.push(p);
      pool.found(found);
    }
    const stats = pool.stat(paths);
    paths.forEach((p, i) => {
      if (p === odd[0]) expect(stats.size(i)).toBe(NOT_A_FILE);
      else if (p === odd[1]) expect(stats.size(i)).toBe(UNREADABLE);
      else {
        const st = statSync(p);
        expect([stats.size(i), stats.mtimeMs(i)]).toEqual([st.size, Math.floor(st.mtimeMs)]);
      }
    });
  } finally {
    pool.close();
  }
});
