#!/usr/bin/env bun
/**
 * Where index.db's bytes go: a fresh build of the generated vault of BENCH_N notes (default 5,000;
 * corpus-gen seed 42, cached in .bench-out), then each table's and index's share of the Markdown
 * from SQLite's dbstat virtual table (FTS5 shadow tables under their table's name). With a path
 * argument it measures that index.db instead and divides by BENCH_MARKDOWN_BYTES if given.
 */
import { Database } from "bun:sqlite";
import { readdirSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { runIndex } from "../../src/index/build/indexer.ts";
import { Vault } from "../../src/vault/vault.ts";
import { emit, generatedVault, isolatedEnv, requireShared, round } from "./common.ts";

const given = process.argv[2];
let indexPath: string;
let markdown: number;
if (given) {
  indexPath = given;
  markdown = Number(process.env.BENCH_MARKDOWN_BYTES ?? 0);
} else {
  if (!requireShared("index-size")) process.exit(0);
  const n = Number(process.env.BENCH_N ?? 5000);
  const vaultDir = generatedVault(n, 42);
  const env = isolatedEnv(`index-size-${n}`, vaultDir);
  rmSync(env.INDX_DATA_DIR!, { recursive: true, force: true });
  const vault = Vault.open(loadConfig({ env }));
  runIndex(vault);
  indexPath = vault.indexPath;
  markdown = markdownBytes(vaultDir);
}

const db = new Database(indexPath, { readonly: true });
const owners = new Map(
  db
    .query<{ name: string; tbl: string; type: string }, []>("SELECT name, tbl_name AS tbl, type FROM sqlite_schema")
    .all()
    .map((r) => [r.name, r]),
);
const rows = db
  .query<{ name: string; bytes: number; payload: number }, []>("SELECT name, sum(pgsize) AS bytes, sum(payload) AS payload FROM dbstat GROUP BY name")
  .all();
// Pages as the database stands, the WAL's included: the file alone may not have them all yet.
const pages = db.query<{ bytes: number }, []>("SELECT page_count * page_size AS bytes FROM pragma_page_count, pragma_page_size").get()!.bytes;
db.close();

const ratio = (bytes: number) => (markdown ? round(bytes / markdown, 3) : null);
const shares = rows
  .map((r) => ({ ...r, group: groupOf(r.name) }))
  .sort((a, b) => b.bytes - a.bytes)
  .map((r) => ({ name: r.name, of: r.group, mb: round(r.bytes / 1e6, 2), payload_mb: round(r.payload / 1e6, 2), ratio: ratio(r.bytes) }));
for (const s of shares) emit({ bench: "index_size.object", ...s });
const groups = new Map<string, number>();
for (const r of rows) groups.set(groupOf(r.name), (groups.get(groupOf(r.name)) ?? 0) + r.bytes);
for (const [group, bytes] of [...groups].sort((a, b) => b[1] - a[1]))
  emit({ bench: "index_size.table", table: group, mb: round(bytes / 1e6, 2), ratio: ratio(bytes) });
emit({ bench: "index_size", markdown_mb: round(markdown / 1e6, 2), index_mb: round(pages / 1e6, 2), ratio: ratio(pages) });

/** The table an object belongs to: an index's table, an FTS5 shadow table's virtual table. */
function groupOf(name: string): string {
  const owner = owners.get(name);
  if (owner && owner.type === "index") return owner.tbl;
  const shadow = /^(\w+?)_(data|idx|content|docsize|config)$/.exec(name);
  if (shadow && owners.get(shadow[1]!)?.type === "table") return shadow[1]!;
  return owner?.tbl ?? name;
}

function markdownBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile() && entry.name.endsWith(".md") && !relative(dir, entry.parentPath).startsWith("."))
      total += statSync(join(entry.parentPath, entry.name)).size;
  return total;
}
