import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AiDb } from "../../../src/index/storage/ai-db.ts";

const dir = mkdtempSync(join(tmpdir(), "indx-ai-cache-writers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Another process (a reader worker, `indx mcp` next to `serve`) writing ai-cache.db: it takes the
 * write lock, says so on stdout, and commits a moment later.
 */
const OTHER_WRITER = `
import { Database } from "bun:sqlite";
const db = new Database(process.argv[1]);
db.run("PRAGMA busy_timeout = 10000");
db.run("BEGIN IMMEDIATE");
db.run("INSERT INTO hits (at) VALUES (1)");
console.log("held");
await Bun.sleep(300);
db.run("COMMIT");
db.close();
`;

test("an edit's cache invalidation waits for another process's write instead of failing with SQLITE_BUSY", async () => {
  const db = new AiDb(dir);
  const now = Date.now();
  db.put("summary:beta", { text: "old summary" }, ["Projects/Beta.md"], now, now + 60_000, 100);

  const other = Bun.spawn(["bun", "-e", OTHER_WRITER, join(dir, "ai-cache.db")], { stdout: "pipe", stderr: "inherit" });
  const reader = other.stdout.getReader();
  let said = "";
  while (!said.includes("held")) {
    const { value, done } = await reader.read();
    if (done) break;
    said += new TextDecoder().decode(value);
  }
  expect(said).toContain("held");

  // A deferred transaction read first and then found its snapshot stale once the other committed:
  // SQLITE_BUSY at once, busy_timeout notwithstanding, and the index update that called it failed.
  expect(db.invalidatePaths(["Projects/Beta.md"])).toBe(1);
  expect(db.get("summary:beta", now)).toBeNull();
  expect(await other.exited).toBe(0);
  db.close();
}, 30_000);
