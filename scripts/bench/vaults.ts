#!/usr/bin/env bun
/**
 * What serving a second vault costs the first (docs/decisions.md, "Several vaults in one server"):
 * one `indx serve` process (in this process, over HTTP on 127.0.0.1) serves vault A, a generated
 * vault (../shared/tools/corpus-gen.ts, 5,000 notes by default), at /v1/vaults/a/…, and search and
 * note_list on A are timed in three phases: A alone (no vault B configured), B served and idle,
 * and B served while another process searches it back to back. The phases alternate
 * (alone, idle, busy, alone, …; B's table is removed between rounds, so the server closes it) so
 * the machine's noise falls on all three. Prints medians and the ratios to A alone.
 * BENCH_SIZES picks the size, BENCH_RUNS the rounds, BENCH_QUERIES the queries per phase.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { startServer } from "../../src/http/serve.ts";
import { Vault } from "../../src/vault/vault.ts";
import { emit, generatedVault, isolatedEnv, median, outDir, requireShared, round } from "./common.ts";

if (!requireShared("vaults")) process.exit(0);
process.env.INDX_LOG = "off";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 40);
const sizes = (process.env.BENCH_SIZES ?? "5000").split(",").map(Number);

for (const n of sizes) {
  const dirA = generatedVault(n, 42);
  const dirB = generatedVault(n, 43);
  const queries = readFileSync(join(dirA, ".bench", "queries.txt"), "utf8")
    .split("\n")
    .filter(Boolean)
    .slice(0, QUERIES);
  const queriesB = readFileSync(join(dirB, ".bench", "queries.txt"), "utf8")
    .split("\n")
    .filter(Boolean);
  const home = outDir(`vaults-${n}`);
  const dataA = join(home, "dataA");
  const dataB = join(home, "dataB");
  const defaultVault = join(home, "default");
  rmSync(home, { recursive: true, force: true });
  for (const d of [dataA, dataB, defaultVault]) mkdirSync(d, { recursive: true });
  writeFileSync(join(defaultVault, "Home.md"), "# Home\n");
  const env = { ...isolatedEnv(`vaults-${n}`, defaultVault), INDX_DATA_DIR: join(home, "dataDefault"), INDX_RATE_LIMIT_PER_SECOND: "0" };
  const configPath = loadConfig({ env }).path;
  mkdirSync(dirname(configPath), { recursive: true });
  const table = (name: string, path: string, data: string) => `[vaults.${name}]\npath = ${JSON.stringify(path)}\ndata_dir = ${JSON.stringify(data)}\n`;
  const configure = (withB: boolean) => {
    const key = loadConfig({ env }).str("server.api_key");
    writeFileSync(
      configPath,
      `${key ? `[server]\napi_key = ${JSON.stringify(key)}\n\n` : ""}${table("a", dirA, dataA)}${withB ? `\n${table("b", dirB, dataB)}` : ""}`,
    );
  };
  configure(false);
  const app = new App(Vault.open(loadConfig({ env })));
  const server = await startServer(app, { host: "127.0.0.1", port: 0, watch: false, notice: () => {} });
  const key = loadConfig({ env }).str("server.api_key") ?? "";
  const headers = { authorization: `Bearer ${key}` };
  const call = async (path: string) => {
    const t = performance.now();
    const res = await fetch(server.url + path, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    return performance.now() - t;
  };
  const search = (vault: string, q: string) => call(`/v1/vaults/${vault}/search?q=${encodeURIComponent(q)}&mode=lexical`);

  // First requests build both indexes; then warm A's caches.
  const buildA = await call("/v1/vaults/a/notes?limit=1");
  configure(true);
  const buildB = await call("/v1/vaults/b/notes?limit=1");
  for (const q of queries) await search("a", q);

  const t = {
    alone: { search: [] as number[], list: [] as number[] },
    idle: { search: [] as number[], list: [] as number[] },
    busy: { search: [] as number[], list: [] as number[] },
  };
  const measure = async (into: { search: number[]; list: number[] }) => {
    for (const [i, q] of queries.entries()) {
      into.search.push(await search("a", q));
      into.list.push(await call(`/v1/vaults/a/notes?limit=50&sort=${i % 2 ? "mtime" : "path"}`));
    }
  };
  let busyCalls = 0;
  for (let r = 0; r < RUNS; r++) {
    configure(false);
    // The server's timer closes B within a second of its table leaving (src/http/vault-routes.ts).
    await Bun.sleep(1_500);
    await measure(t.alone);
    configure(true);
    await call("/v1/vaults/b/notes?limit=1");
    // B's reopening (its incremental pass, its reader threads starting) is not what "idle" measures.
    await Bun.sleep(1_500);
    await measure(t.idle);
    const load = Bun.spawn(
      [
        "bun",
        "-e",
        `const qs = JSON.parse(process.env.QS); let i = 0; for (;;) { const r = await fetch(process.env.URL + encodeURIComponent(qs[i++ % qs.length]) + "&mode=lexical", { headers: { authorization: "Bearer " + process.env.KEY } }); await r.arrayBuffer(); console.log(1); }`,
      ],
      {
        env: { ...process.env, QS: JSON.stringify(queriesB.slice(0, 200)), URL: `${server.url}/v1/vaults/b/search?q=`, KEY: key },
        stdout: "pipe",
        stderr: "ignore",
      },
    );
    const counting = (async () => {
      const reader = load.stdout.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        busyCalls += value.filter((b) => b === 10).length;
      }
    })();
    await Bun.sleep(300);
    await measure(t.busy);
    load.kill();
    await load.exited;
    await counting;
  }
  const med = (xs: number[]) => round(median(xs), 2);
  emit({
    bench: "vaults",
    notes_per_vault: n,
    first_request_build_ms: { a: round(buildA, 0), b: round(buildB, 0) },
    search_ms: { alone: med(t.alone.search), b_idle: med(t.idle.search), b_busy: med(t.busy.search) },
    note_list_ms: { alone: med(t.alone.list), b_idle: med(t.idle.list), b_busy: med(t.busy.list) },
    search_ratio: { b_idle: round(median(t.idle.search) / median(t.alone.search), 2), b_busy: round(median(t.busy.search) / median(t.alone.search), 2) },
    note_list_ratio: { b_idle: round(median(t.idle.list) / median(t.alone.list), 2), b_busy: round(median(t.busy.list) / median(t.alone.list), 2) },
    b_searches_during_busy: busyCalls,
    samples_per_phase: t.alone.search.length,
    load: round(loadavg()[0] ?? 0, 2),
  });
  await server.stop();
}
