import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { VaultWatcher } from "../../src/index/build/watcher.ts";
import { vaultReindex } from "../../src/maintenance/ops.ts";
import { invoke } from "../support/ops.ts";
import { sandbox } from "../support/vault.ts";

const sb = sandbox({ "Old.md": "# Old\n" });
afterAll(() => sb.cleanup());

/** Polls `done` until it holds or `ms` pass; the test then asserts on what it saw, not on the time. */
async function until(done: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await Bun.sleep(10);
}

test("a watcher pass that fails (SQLITE_BUSY: another process holds the write lock) is retried: the outside edit gets indexed and subscribers hear of it", async () => {
  const ctx = sb.context();
  await invoke(vaultReindex, ctx, {});
  const heard: string[] = [];
  ctx.onIndexUpdate((report) => heard.push(...report.changed));
  // The watcher's pass gives up on the lock after 50 ms instead of the usual 10 s.
  ctx.index.setBusyTimeout(50);
  const watcher = new VaultWatcher(ctx, 20);
  watcher.start();

  // Another process writing the index: it holds SQLite's write lock until it commits.
  const other = new Database(join(sb.dataDir, "index.db"));
  other.run("BEGIN IMMEDIATE");
  try {
    sb.write("Outside.md", "# Outside\n\nWritten by another editor.\n");
    await until(() => watcher.failedPasses > 0);
    expect(watcher.failedPasses).toBeGreaterThan(0);
    expect(heard).not.toContain("Outside.md");
  } finally {
    other.run("ROLLBACK");
    other.close();
  }

  // No further change on disk: the retry alone must bring the edit in.
  await until(() => heard.includes("Outside.md"));
  expect(heard).toContain("Outside.md");
  expect(ctx.index.files.stored().map((f) => f.path)).toContain("Outside.md");
  watcher.stop();
  ctx.close();
}, 30_000);
