#!/usr/bin/env bun
/**
 * Compiles indx into one executable, dist/indx. Minify + splitting + bytecode keep start-up to a
 * few milliseconds (docs/stack.md, Build): commands load their code lazily.
 *
 * The index worker is an entrypoint of its own (Bun bundles a Worker's file only when it is one).
 * `[name]` entry naming puts it at the root of the embedded files, beside the chunks, so the
 * `new URL("./index-worker.ts", import.meta.url)` of worker-runner.ts finds it there as it finds
 * the source file next to itself when run from source.
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
