import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { vaultStatus } from "../../src/maintenance/ops.ts";
import { indexWriteLocked } from "../support/index-rows.ts";
import { invoke } from "../support/ops.ts";
import { sandbox } from "../support/vault.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");
const NOTES = 5000;
const FILLER = "Words about the project, its plans and the people in it, to give the indexer some work.\n".repeat(30);

const sb = sandbox();
afterAll(() => sb.cleanup());
for (let i = 0; i < NOTES; i++) sb.write(`n${i % 50}/Note ${i}.md`, `---\ntags: [t${i % 40}]\n---\n# Note ${i}\n\nSee [[Note ${i + 1}]].\n\n${FILLER}`);

const cli = (args: string[]) => Bun.spawnSync([process.execPath, MAIN, ...args], { env: sb.env, stdout: "pipe", stderr: "pipe" });

/** Files the index holds right now, as another process sees it (null while it cannot be read). */
function indexedFiles(): number | null {
  try {
    const db = new Database(join(sb.dataDir, "index.db"), { readonly: true });
    // A writer closing its last connection checkpoints the WAL under a brief exclusive lock.
    db.run("PRAGMA busy_timeout = 1000");
    try {
      return db.query<{ n: number }, []>("SELECT count(*) AS n FROM files").get()?.n ?? 0;
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

/** Starts a first build (no index on disk) and SIGKILLs it once part of the notes are in. Returns how many were. */
async function killMidFirstBuild(): Promise<number> {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(join(sb.dataDir, `index.db${suffix}`), { force: true });
  const child = Bun.spawn([process.execPath, MAIN, "vault", "index"], { env: sb.env, stdout: "ignore", stderr: "ignore" });
  let seen: number | null = null;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && child.exitCode === null) {
    seen = indexedFiles();
    if (seen !== null && seen > 0 && seen < NOTES) break;
    await Bun.sleep(2);
  }
  child.kill("SIGKILL");
  await child.exited;
  return indexedFiles() ?? 0;
}

test("a first build killed part-way never looks finished: readers get index_incompatible, vault_status is not ready, the next index run starts over", async () => {
  let partial = 0;
  for (let attempt = 0; attempt < 5 && (partial === 0 || partial >= NOTES); attempt++) partial = await killMidFirstBuild();
  // The kill must land inside the build for this test to mean anything.
  expect(partial).toBeGreaterThan(0);
  expect(partial).toBeLessThan(NOTES);

  const search = cli(["search", "project"]);
  expect(search.exitCode).toBe(6);
  expect(search.stderr.toString()).toContain("index_incompatible");
  expect(search.stderr.toString()).toContain("indx vault index");

  const ctx = sb.context();
  const status = (await invoke(vaultStatus, ctx, { probe: false })) as { index: { state: string; reason?: string; fix?: string } };
  expect(status.index.state).toBe("incompatible");
  expect(status.index.reason).toContain("did not finish");
  ctx.close();

  const again = cli(["vault", "index"]);
  expect(again.exitCode).toBe(0);
  const report = JSON.parse(again.stdout.toString()) as { rebuilt: string | null; added: number };
  expect(report.rebuilt).toContain("did not finish");
  expect(report.added).toBe(NOTES);
  expect(indexedFiles()).toBe(NOTES);
  expect(cli(["search", "project"]).exitCode).toBe(0);
}, 120_000);

test("a rebuild of a good index killed part-way leaves that index whole: one transaction, rolled back", async () => {
  expect(cli(["vault", "index"]).exitCode).toBe(0);
  expect(indexedFiles()).toBe(NOTES);

  const child = Bun.spawn([process.execPath, MAIN, "vault", "index", "--rebuild"], { env: sb.env, stdout: "ignore", stderr: "ignore" });
  let inside = false;
  const deadline = Date.now() + 30_000;
  while (!inside && Date.now() < deadline && child.exitCode === null) {
    // Readers see the whole old index all along; the write lock shows the rebuild is under way.
    expect(indexedFiles()).toBe(NOTES);
    inside = indexWriteLocked(sb.dataDir);
    if (!inside) await Bun.sleep(2);
  }
  child.kill("SIGKILL");
  await child.exited;
  // The kill must land inside the rebuild for this test to mean anything.
  expect(inside).toBe(true);

  expect(indexedFiles()).toBe(NOTES);
  const search = cli(["search", "project", "--no-refresh"]);
  expect(search.exitCode).toBe(0);
  const ctx = sb.context();
  const status = (await invoke(vaultStatus, ctx, { probe: false })) as { index: { state: string } };
  expect(status.index.state).toBe("ready");
  ctx.close();
  const again = JSON.parse(cli(["vault", "index"]).stdout.toString()) as { rebuilt: string | null; added: number };
  expect(again).toMatchObject({ rebuilt: null, added: 0 });
}, 120_000);
