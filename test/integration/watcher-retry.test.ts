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

test("an index listener that fails after the pass committed (a cache it could not clear) does not swallow the pass's events: subscribers still hear the edit", async () => {
  const ctx = sb.context();
  await invoke(vaultReindex, ctx, {});
  const events: string[] = [];
  ctx.events.subscribe((e) => {
    if (e.kind.startsWith("note.") && typeof e.path === "string") events.push(e.path);
  });
  let fail = true;
  const later: string[] = [];
  ctx.onIndexUpdate(() => {
    if (fail) throw new Error("SQLITE_BUSY: database is locked");
  });
  ctx.onIndexUpdate((report) => later.push(...report.changed));
  const watcher = new VaultWatcher(ctx, 20);
  watcher.start();

  sb.write("Old.md", "# Old\n\nEdited in another editor.\n");
  await until(() => watcher.failedPasses > 0);
  fail = false;
  // The pass was committed before the listener failed: its retry finds nothing left to index, so
  // only the failed pass itself could announce the edit.
  await until(() => events.includes("Old.md"));
  expect(events).toContain("Old.md");
  // The listeners after the failing one were told too (their caches follow the index).
  expect(later).toContain("Old.md");
  watcher.stop();
  ctx.close();
}, 30_000);
