#!/usr/bin/env bun
/**
 * Write latency on the generated 5,000-note vault (a copy: the benchmark edits it), in process,
 * through the whole pipeline (locks, If-Match, atomic replace with fsync, reindex, event):
 * note_patch (append_to_section), note_write (replace), and note_move of the most linked note
 * with every backlink rewritten. Each figure is the median of N runs.
 */
import { Database } from "bun:sqlite";
import { cpSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { parseNote } from "../../src/markdown/parse.ts";
import { noteMove } from "../../src/notes/move-ops.ts";
import { notePatch, noteWrite } from "../../src/notes/write-ops.ts";
import { invoke } from "../../src/ops/invoke.ts";
import { Vault } from "../../src/vault/vault.ts";
import { emit, generatedVault, isolatedEnv, median, outDir, percentile, requireShared, round } from "./common.ts";

if (!requireShared("writes")) process.exit(0);
const source = generatedVault(Number(process.env.BENCH_N ?? 5000), 42);
const vaultDir = join(outDir("writes"), "vault");
rmSync(vaultDir, { recursive: true, force: true });
cpSync(source, vaultDir, { recursive: true });
const env = isolatedEnv("writes", vaultDir);
rmSync(env.INDX_DATA_DIR!, { recursive: true, force: true });
const ctx = new App(Vault.open(loadConfig({ env })));
await ctx.updateIndex({ build: true });
// The benchmark picks its targets with SQL of its own, on a read-only connection.
const db = new Database(ctx.vault.indexPath, { readonly: true });

const notes = db
  .query<{ path: string }, []>("SELECT path FROM files WHERE kind = 'note' ORDER BY path LIMIT 200")
  .all()
  .map((r) => r.path);
/** The last heading of a note whose text no other heading of it has: append_to_section finds it by name alone. */
function uniqueHeading(path: string): string | undefined {
  const texts = parseNote(readFileSync(join(vaultDir, path), "utf8")).headings.map((h) => h.text);
  return texts.findLast((t) => texts.indexOf(t) === texts.lastIndexOf(t));
}

// A heading of each note to append under, as the patch engine reads headings (the index keeps no heading rows).
const headed = notes
  .map((path) => ({ path, heading: uniqueHeading(path) }))
  .filter((n): n is { path: string; heading: string } => typeof n.heading === "string");

async function timed(label: string, runs: number, once: (i: number) => Promise<unknown>, extra: Record<string, unknown> = {}) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await once(i);
    times.push(performance.now() - t);
  }
  emit({ bench: label, runs, median_ms: round(median(times)), p90_ms: round(percentile(times, 90)), ...extra });
}

await timed("writes.note_patch", 100, (i) => {
  const n = headed[i % headed.length]!;
  return invoke(notePatch, ctx, { path: n.path, ops: [{ op: "append_to_section", heading: n.heading, markdown: `- bench line ${i}` }] });
});
await timed("writes.note_write_replace", 100, (i) => invoke(noteWrite, ctx, { path: `Bench/n${i % 20}.md`, body: `# Bench ${i}\n\ntext ${i}\n` }));

const [top] = db
  .query<{ path: string; n: number }, []>(
    "SELECT dst_path AS path, count(*) AS n FROM links WHERE dst_path LIKE '%.md' GROUP BY dst_path ORDER BY n DESC LIMIT 1",
  )
  .all();
if (top) {
  let at = top.path;
  await timed(
    "writes.note_move_most_linked",
    5,
    async (i) => {
      const to = `Moved/${i}-${at.split("/").pop()}`;
      await invoke(noteMove, ctx, { from: at, to });
      at = to;
    },
    { backlinks: top.n },
  );
}
db.close();
ctx.close();
