#!/usr/bin/env bun
/**
 * Lists that read the whole vault, computed once per index version (docs/decisions.md, "Derived
 * results are kept per index version"), on a generated vault (../shared/tools/corpus-gen.ts):
 * - anchors_first_ms / anchors_next_ms: link_broken_anchors' first page, then the median of the
 *   pages after it (target: ≤ 100 ms at 100,000 notes);
 * - where_first_ms / where_repeat_ms: note_list with a `where`, first and repeated (≤ 20 ms);
 * - list_repeat_ms: note_list without a where, repeated;
 * - base_first_ms / base_repeat_ms: base_query, first and repeated (≤ 20 ms);
 * - after_edit_ms: base_query after one note is edited and indexed (the result is computed again).
 * BENCH_SIZES picks the sizes (default 20000), BENCH_RUNS the repeats. Medians; the load average goes with each line.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { App } from "../../src/app/context.ts";
import { baseQuery } from "../../src/bases/ops.ts";
import { loadConfig } from "../../src/config/load.ts";
import { linkBrokenAnchors } from "../../src/links/ops.ts";
import { noteList } from "../../src/notes/ops.ts";
import { invoke } from "../../src/ops/invoke.ts";
import { Vault } from "../../src/vault/vault.ts";
import { emit, generatedVault, isolatedEnv, median, requireShared, round } from "./common.ts";

if (!requireShared("derived")) process.exit(0);

const BASE = `
filters:
  and:
    - file.ext == "md"
    - status != "done"
formulas:
  title_words: title.split(" ").length
views:
  - type: table
    name: Open work
    order: [file.name, status, formula.title_words]
    sort:
      - property: file.name
        direction: ASC
`;
const WHERE = 'status != "done" && file.name.contains("a")';
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const sizes = (process.env.BENCH_SIZES ?? "20000").split(",").map(Number);

const time = async (f: () => unknown) => {
  const t = performance.now();
  await f();
  return performance.now() - t;
};
const repeat = async (f: () => unknown) => {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await time(f));
  return round(median(times), 2);
};

for (const n of sizes) {
  const vaultDir = generatedVault(n, 42);
  const env = isolatedEnv(`derived-${n}`, vaultDir);
  rmSync(env.INDX_DATA_DIR!, { recursive: true, force: true });
  const ctx = new App(Vault.open(loadConfig({ env })));
  await ctx.updateIndex({ build: true });

  const anchorsFirst = await time(() => invoke(linkBrokenAnchors, ctx, { limit: 100 }));
  const first = await invoke(linkBrokenAnchors, ctx, { limit: 100 });
  const pages: number[] = [];
  let cursor = first.next_cursor;
  for (let i = 0; i < RUNS && cursor; i++) {
    const c = cursor;
    pages.push(await time(async () => (cursor = (await invoke(linkBrokenAnchors, ctx, { limit: 100, cursor: c })).next_cursor)));
  }
  // Without a second page the first one, asked again, stands for it: it reads the same kept list.
  if (pages.length === 0) pages.push(await time(() => invoke(linkBrokenAnchors, ctx, { limit: 100 })));

  const whereFirst = await time(() => invoke(noteList, ctx, { where: WHERE }));
  const whereRepeat = await repeat(() => invoke(noteList, ctx, { where: WHERE }));
  await invoke(noteList, ctx, {});
  const listRepeat = await repeat(() => invoke(noteList, ctx, {}));
  const baseFirst = await time(() => invoke(baseQuery, ctx, { base: BASE }));
  const baseRepeat = await repeat(() => invoke(baseQuery, ctx, { base: BASE }));

  const result = await invoke(baseQuery, ctx, { base: BASE, limit: 1 });
  const path = result.rows[0]!.path;
  const original = readFileSync(join(vaultDir, path), "utf8");
  writeFileSync(join(vaultDir, path), `${original}\nedited\n`);
  await ctx.updateIndex({ paths: [path] });
  const afterEdit = await time(() => invoke(baseQuery, ctx, { base: BASE }));
  writeFileSync(join(vaultDir, path), original);
  await ctx.updateIndex({ paths: [path] });

  emit({
    bench: "derived",
    notes: n,
    broken_anchors: first.total,
    anchors_first_ms: round(anchorsFirst, 1),
    anchors_next_ms: round(median(pages), 2),
    where_first_ms: round(whereFirst, 1),
    where_repeat_ms: whereRepeat,
    list_repeat_ms: listRepeat,
    base_first_ms: round(baseFirst, 1),
    base_repeat_ms: baseRepeat,
    after_edit_ms: round(afterEdit, 1),
    runs: RUNS,
    load_average: round(loadavg()[0]!, 2),
  });
  ctx.close();
}
