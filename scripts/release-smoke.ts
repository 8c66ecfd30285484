#!/usr/bin/env bun
/**
 * Smoke test of a release archive (run by hand after scripts/release.ts; CI never builds one):
 * unpacks it, then on a copy of the demo vault indexes with embeddings from the fake AI server,
 * searches lexically and semantically, and checks that sqlite-vec was loaded (vectors.db has its
 * int8 KNN table, which only exists when the extension loads). linux-arm64 runs under qemu:
 *
 *   bun scripts/release-smoke.ts release/indx-linux-x64.tar.gz
 *   bun scripts/release-smoke.ts release/indx-linux-arm64.tar.gz   # qemu-aarch64-static
 *
 * For the host's archive it then runs the whole e2e suite (index, search, serve, MCP) on the
 * unpacked binary (INDX_E2E_BIN).
 */
import { Database } from "bun:sqlite";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fakeEnv, startFakeAiServer } from "../test/support/fake-ai-server.ts";

const ROOT = resolve(import.meta.dir, "..");
const archive = resolve(process.argv[2] ?? join(ROOT, "release", "indx-linux-x64.tar.gz"));
const target = /indx-([a-z0-9-]+)\.tar\.gz$/.exec(basename(archive))?.[1];
if (!target?.startsWith("linux-")) throw new Error("give a linux release archive (indx-linux-x64.tar.gz or indx-linux-arm64.tar.gz)");
const hostArch = process.arch === "arm64" ? "arm64" : "x64";
const emulator = target.endsWith(hostArch) ? [] : ["qemu-aarch64-static", "-L", "/usr/aarch64-linux-gnu"];

const dir = mkdtempSync(join(tmpdir(), "indx-smoke-"));
const fake = startFakeAiServer();
let failed = false;
try {
  if (Bun.spawnSync(["tar", "-xzf", archive, "-C", dir]).exitCode !== 0) throw new Error("could not unpack the archive");
  const bin = join(dir, "indx");
  const vault = join(dir, "vault");
  cpSync(join(ROOT, "fixtures", "demo-vault"), vault, { recursive: true });
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, "config"),
    XDG_DATA_HOME: join(dir, "share"),
    INDX_VAULT: vault,
    INDX_DATA_DIR: join(dir, "data"),
    INDX_DEBUG: "1",
    ...fakeEnv(fake, "ollama", "fake-embed-128"),
  };
  const run = async (...args: string[]) => {
    const started = performance.now();
    const p = Bun.spawn([...emulator, bin, ...args], { env, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    const ms = Math.round(performance.now() - started);
    if (code !== 0 || stderr.includes("sqlite-vec failed")) throw new Error(`indx ${args.join(" ")} failed (exit ${code}): ${stderr}`);
    return { json: JSON.parse(stdout), ms };
  };
  const check = (what: string, ok: boolean, detail: string) => {
    console.log(`${ok ? "ok  " : "FAIL"} ${what}: ${detail}`);
    if (!ok) failed = true;
  };

  console.log(`${basename(archive)}${emulator.length ? " under qemu" : ""}`);
  const idx = await run("vault", "index");
  check(
    "index",
    idx.json.scanned > 10 && idx.json.embeddings.embedded > 10,
    `${idx.json.scanned} files, ${idx.json.embeddings.embedded} chunks embedded (${idx.ms} ms)`,
  );
  const lex = await run("search", "rollback", "runbook", "--mode", "lexical");
  check("lexical search", lex.json.results[0]?.path === "Reference/Runbook.md", `top hit ${lex.json.results[0]?.path} (${lex.ms} ms)`);
  const sem = await run("search", "how do we roll back a launch", "--mode", "semantic");
  check("semantic search", sem.json.mode_used === "semantic" && sem.json.results.length > 0, `${sem.json.results.length} hits (${sem.ms} ms)`);
  const db = new Database(join(dir, "data", "vectors.db"), { readonly: true });
  const knnTable = db.query("SELECT 1 FROM sqlite_master WHERE name = 'vec'").get() !== null;
  db.close();
  check("sqlite-vec loaded", knnTable, knnTable ? "vectors.db has its vec0 table" : "no vec0 table: the extension did not load");

  if (!emulator.length && !failed) {
    console.log("e2e suite on the unpacked binary:");
    const e2e = Bun.spawnSync(["bun", "test", "test/e2e"], { cwd: ROOT, env: { ...process.env, INDX_E2E_BIN: bin }, stdout: "inherit", stderr: "inherit" });
    check("e2e suite", e2e.exitCode === 0, `exit ${e2e.exitCode}`);
  }
} finally {
  fake.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
