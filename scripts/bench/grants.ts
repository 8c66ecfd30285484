#!/usr/bin/env bun
/**
 * What a folder grant costs a read (docs/permissions.md): vault_search and note_list on a
 * generated vault (../shared/tools/corpus-gen.ts, 20,000 notes by default), with a token holding
 * 10 grants (read, write and deny globs) against an ungranted one, in one process, calls of the
 * two alternated (A B A B) so the machine's noise falls on both. Prints the medians and the
 * ratio granted / ungranted, and the first granted call, which opens the grant's connection and
 * fills its visible set. BENCH_SIZES picks the sizes, BENCH_RUNS the rounds (each round runs
 * every query of the corpus once each way).
 */
import { readFileSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { noteList } from "../../src/notes/ops.ts";
import type { OpContext } from "../../src/ops/context.ts";
import { invoke } from "../../src/ops/invoke.ts";
import { vaultSearch } from "../../src/search/ops.ts";
import { compileGrant } from "../../src/vault/grant.ts";
import { Vault } from "../../src/vault/vault.ts";
import { emit, generatedVault, isolatedEnv, median, requireShared, round } from "./common.ts";

if (!requireShared("grants")) process.exit(0);

/** Ten globs, as a token for one client's work would hold them. */
const GRANT = {
  read: ["projects/**", "resources/**", "people/**", "meetings/2024-0*/**", "journal/2023/**", "archive/2022/**", "**/*Decision*.md"],
  write: ["inbox/**"],
  deny: ["projects/secret/**", "**/*private*"],
};
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const sizes = (process.env.BENCH_SIZES ?? "20000").split(",").map(Number);

const time = async (f: () => unknown) => {
  const t = performance.now();
  await f();
  return performance.now() - t;
};

for (const n of sizes) {
  const vaultDir = generatedVault(n, 42);
  const queries = readFileSync(join(vaultDir, ".bench", "queries.txt"), "utf8")
    .split("\n")
    .filter(Boolean);
  const env = isolatedEnv(`grants-${n}`, vaultDir);
  rmSync(env.INDX_DATA_DIR ?? "", { recursive: true, force: true });
  const app = new App(Vault.open(loadConfig({ env })));
  await app.updateIndex({ build: true });
  const grant = compileGrant(GRANT);
  const plain = (): OpContext => app.forCall({});
  const granted = (): OpContext => app.forCall({ grant });

  const firstGranted = await time(() => invoke(noteList, granted(), { limit: 50 }));
  const visible = (await invoke(noteList, granted(), { limit: 1 })).total;
  const all = (await invoke(noteList, plain(), { limit: 1 })).total;
  // Warm both ways once (statement caches, page cache).
  for (const q of queries) {
    await invoke(vaultSearch, plain(), { q, mode: "lexical" });
    await invoke(vaultSearch, granted(), { q, mode: "lexical" });
  }
  const t = { searchPlain: [] as number[], searchGranted: [] as number[], listPlain: [] as number[], listGranted: [] as number[] };
  for (let r = 0; r < RUNS; r++) {
    for (const q of queries) {
      t.searchPlain.push(await time(() => invoke(vaultSearch, plain(), { q, mode: "lexical" })));
      t.searchGranted.push(await time(() => invoke(vaultSearch, granted(), { q, mode: "lexical" })));
    }
    for (const sort of ["path", "mtime"] as const)
      for (let i = 0; i < 5; i++) {
        t.listPlain.push(await time(() => invoke(noteList, plain(), { limit: 50, sort })));
        t.listGranted.push(await time(() => invoke(noteList, granted(), { limit: 50, sort })));
      }
  }
  const m = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, round(median(v), 2)])) as Record<keyof typeof t, number>;
  emit({
    bench: "grants",
    notes: n,
    visible_notes: visible,
    all_notes: all,
    globs: GRANT.read.length + GRANT.write.length + GRANT.deny.length,
    first_granted_call_ms: round(firstGranted, 1),
    search_ms: m.searchPlain,
    search_granted_ms: m.searchGranted,
    search_ratio: round(m.searchGranted / m.searchPlain, 2),
    note_list_ms: m.listPlain,
    note_list_granted_ms: m.listGranted,
    note_list_ratio: round(m.listGranted / m.listPlain, 2),
    samples: t.searchPlain.length,
    load: round(loadavg()[0] ?? 0, 2),
  });
  app.close();
}
