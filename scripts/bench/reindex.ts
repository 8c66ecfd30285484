/**
 * The cost of one targeted index update (`updateIndex` with `only`), as a write or the watcher
 * pays it: an edit of one note, the watcher's echo of that edit (nothing changed), a new note
 * and its deletion. In process, on a copy of the generated vault; prints medians in ms.
 *   bun scripts/bench/reindex.ts [notes=5000] [rounds=30]
 */
import { appendFileSync, cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { runIndex, updateIndex } from "../../src/index/build/indexer.ts";
import { indexIdentity } from "../../src/index/storage/connection.ts";
import { IndexStore } from "../../src/index/storage/store.ts";
import { Vault } from "../../src/vault/vault.ts";
import { emit, generatedVault, median } from "./common.ts";

const notes = Number(process.argv[2] ?? 5000);
const rounds = Number(process.argv[3] ?? 30);
const dir = mkdtempSync(join(tmpdir(), "indx-reindex-"));
const root = join(dir, "vault");
cpSync(generatedVault(notes, 42), root, { recursive: true });
const env = { HOME: dir, INDX_VAULT: root, INDX_DATA_DIR: join(dir, "data"), INDX_LOG: "off", PATH: process.env.PATH ?? "" };
const vault = Vault.open(loadConfig({ flags: {}, env }));
try {
  runIndex(vault);
  const { store } = IndexStore.openForIndexing(vault.indexPath, indexIdentity(vault));
  const some = readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((p) => p.endsWith(".md"))
    .slice(0, rounds);
  const times = { edit: [] as number[], echo: [] as number[], create: [] as number[], delete: [] as number[] };
  const timed = (into: number[], paths: string[]) => {
    const t = performance.now();
    updateIndex(vault, store, { only: paths });
    into.push(performance.now() - t);
  };
  some.forEach((path, i) => {
    appendFileSync(join(root, path), `\nedited ${i} [[Fresh ${i}]]\n`);
    timed(times.edit, [path]);
    timed(times.echo, [path]);
    writeFileSync(join(root, `Fresh ${i}.md`), `# Fresh ${i}\n\nsee [[${path.replace(/\.md$/, "")}]]\n`);
    timed(times.create, [`Fresh ${i}.md`]);
    rmSync(join(root, `Fresh ${i}.md`));
    timed(times.delete, [`Fresh ${i}.md`]);
  });
  store.close();
  const ms = (xs: number[]) => Math.round(median(xs) * 100) / 100;
  emit({ bench: "reindex", notes, rounds, edit_ms: ms(times.edit), echo_ms: ms(times.echo), create_ms: ms(times.create), delete_ms: ms(times.delete) });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
