/** Shared helpers of the benchmarks: paths, timing statistics, one-JSON-line output. */
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "..", "..");
/** ../shared beside the checkout; BENCH_SHARED (or INDX_BENCH_SHARED) names it for a checkout elsewhere (a git worktree). */
const NAMED_SHARED = process.env.BENCH_SHARED ?? process.env.INDX_BENCH_SHARED;
export const SHARED = NAMED_SHARED ? resolve(NAMED_SHARED) : resolve(ROOT, "..", "shared");
export const OUT = join(ROOT, ".bench-out");
export const BIN = join(ROOT, "dist", "indx");

export function requireShared(what: string): boolean {
  if (existsSync(SHARED)) return true;
  console.log(JSON.stringify({ bench: what, skipped: "../shared is not beside this checkout" }));
  return false;
}

export function outDir(name: string): string {
  const dir = join(OUT, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

export function emit(record: Record<string, unknown>): void {
  console.log(JSON.stringify(record));
}

/** Generates the synthetic vault with ../shared/tools/corpus-gen.ts once and reuses it. */
export function generatedVault(n: number, seed: number): string {
  const dir = join(OUT, `vault-${n}-${seed}`);
  if (!existsSync(join(dir, ".bench", "manifest.json"))) {
    const p = Bun.spawnSync(["bun", join(SHARED, "tools", "corpus-gen.ts"), "--out", dir, "--n", String(n), "--seed", String(seed)], {
      stdout: "ignore",
      stderr: "inherit",
    });
    if (p.exitCode !== 0) throw new Error("corpus-gen failed");
  }
  return dir;
}

/** Environment that keeps benchmark config and data away from the user's own. */
export function isolatedEnv(name: string, vault: string): Record<string, string> {
  const home = outDir(`home-${name}`);
  return {
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_CONFIG_HOME: join(home, "config"),
    XDG_DATA_HOME: join(home, "share"),
    INDX_VAULT: vault,
    INDX_DATA_DIR: join(home, "data"),
    INDX_LOG: "off",
    // Compares serve with and without its reader workers (server.read_workers) in the same conditions.
    ...(process.env.INDX_READ_WORKERS ? { INDX_READ_WORKERS: process.env.INDX_READ_WORKERS } : {}),
    // Compares reader threads below the request thread with the same priority (server.read_nice).
    ...(process.env.INDX_READ_NICE ? { INDX_READ_NICE: process.env.INDX_READ_NICE } : {}),
    // Compares a build with and without its rows worker (scale.ts).
    ...(process.env.BENCH_ROWS_WORKER ? { BENCH_ROWS_WORKER: process.env.BENCH_ROWS_WORKER } : {}),
  };
}

/**
 * Starts `dist/indx serve` on a free port (no watcher) and returns its URL and admin token.
 * Rate limiting is off: the benchmarks measure latency, back to back.
 */
export async function startServe(env: Record<string, string>): Promise<{ url: string; key: string; stop(): Promise<void> }> {
  const server = Bun.spawn([BIN, "serve", "--port", "0", "--no-watch"], {
    env: { ...env, INDX_RATE_LIMIT_PER_SECOND: "0" },
    stdout: "ignore",
    stderr: "pipe",
  });
  let url = "";
  let seen = "";
  const reader = server.stderr.getReader();
  while (!url) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += new TextDecoder().decode(value);
    url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(seen)?.[1] ?? "";
  }
  if (!url) throw new Error("indx serve did not start");
  const key = Bun.spawnSync([BIN, "config", "reveal-api-key"], { env }).stdout.toString().trim();
  return {
    url,
    key,
    async stop() {
      server.kill();
      await server.exited;
    },
  };
}
