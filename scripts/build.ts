#!/usr/bin/env bun
/**
 * Compiles indx into one executable, dist/indx. Minify + splitting + bytecode keep start-up to a
 * few milliseconds (docs/stack.md, Build): commands load their code lazily.
 *
 * The index worker and the reader worker are entrypoints of their own (Bun bundles a Worker's
 * file only when it is one). `[name]` entry naming puts them at the root of the embedded files,
 * beside the chunks, so `new URL("./index-worker.ts", import.meta.url)` in worker-runner.ts (and
 * "./reader-worker.ts" in reader-pool.ts) finds them there as it finds the source file next to
 * itself when run from source.
 */
import { rmSync } from "node:fs";

rmSync("dist", { recursive: true, force: true });
const started = performance.now();
const proc = Bun.spawnSync(
  [
    "bun",
    "build",
    "src/main.ts",
    "src/index/index-worker.ts",
    "src/ops/reader-worker.ts",
    "--compile",
    "--minify",
    "--splitting",
    "--bytecode",
    "--format=esm",
    "--entry-naming",
    "[name].[ext]",
    "--outfile",
    "dist/indx",
  ],
  {
    stdout: "inherit",
    stderr: "inherit",
  },
);
if (proc.exitCode !== 0) process.exit(proc.exitCode ?? 1);
console.error(`built dist/indx in ${Math.round(performance.now() - started)} ms`);
