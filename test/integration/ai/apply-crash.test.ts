import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { etagOf } from "../../../src/core/hash.ts";
import { indexRows } from "../../support/index-rows.ts";
import { sandbox } from "../../support/vault.ts";

const NOTES = 150;
const names = Array.from({ length: NOTES }, (_, i) => `n${String(i).padStart(3, "0")}.md`);

test("an AI apply killed inside a batch is finished by the next writer: whole notes, a written prefix, an index that agrees", async () => {
  const sb = sandbox();
  try {
    // Big notes, so a kill often lands while a batch is being written.
    for (const name of names) sb.write(name, `---\nround: none\n---\n# ${name}\n\n${"filler text\n".repeat(2000)}`);
    const setup = sb.context();
    await setup.updateIndex({ build: true });
    setup.close();

    const journal = join(sb.dataDir, "write-journal.json");
    const roundOf = (name: string) => /^round: (\w+)$/m.exec(readFileSync(join(sb.vault, name), "utf8"))?.[1];
    let interrupted = 0;
    // Until three kills have landed inside a batch (most do), at most 16.
    for (let kill = 0; kill < 16 && interrupted < 3; kill++) {
      const child = Bun.spawn([process.execPath, join(import.meta.dir, "../../support/apply-loop.ts")], { env: sb.env, stdout: "pipe", stderr: "ignore" });
      await child.stdout.getReader().read(); // "ready"
      // Aim inside a batch: the journal exists exactly while its notes are being staged and replaced.
      const deadline = Date.now() + 10_000;
      while (!existsSync(journal) && Date.now() < deadline) await Bun.sleep(1);
      await Bun.sleep(Math.random() * 30);
      child.kill("SIGKILL");
      await child.exited;
      const inBatch = existsSync(journal);
      if (inBatch) interrupted++;

      const ctx = sb.context();
      await ctx.writer.recover();
      expect(existsSync(journal)).toBe(false);
      // Notes go in path order: those written carry the new round, the rest the old one, nothing torn between.
      const rounds = names.map(roundOf);
      expect(rounds.every((r) => r === "none" || r === "even" || r === "odd")).toBe(true);
      expect(rounds.filter((r, i) => i > 0 && r !== rounds[i - 1]).length).toBeLessThanOrEqual(1);
      if (inBatch) {
        // Recovery reindexed the batch it finished, the notes written before the kill as well.
        const indexed = new Map(indexRows<{ path: string; etag: string }>(ctx, "SELECT path, etag FROM files").map((r) => [r.path, r.etag]));
        expect(names.filter((name) => indexed.get(name) !== etagOf(readFileSync(join(sb.vault, name))))).toEqual([]);
      }
      await ctx.updateIndex({ full: true });
      ctx.close();
    }
    // The kills must actually land inside batches for this test to mean anything.
    expect(interrupted).toBeGreaterThan(0);
  } finally {
    sb.cleanup();
  }
}, 90_000);
