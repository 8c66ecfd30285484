#!/usr/bin/env bun
/**
 * Compiles indx into one executable, dist/indx. Minify + splitting + bytecode keep start-up to a
 * few milliseconds (docs/stack.md, Build): commands load their code lazily.
 */
import { rmSync } from "node:fs";

rmSync("dist", { recursive: true, force: true });
const started = performance.now();
const proc = Bun.spawnSync(["bun", "build", "src/main.ts", "--compile", "--minify", "--splitting", "--bytecode", "--format=esm", "--outfile", "dist/indx"], {
  stdout: "inherit",
  stderr: "inherit",
});
if (proc.exitCode !== 0) process.exit(proc.exitCode ?? 1);
console.error(`built dist/indx in ${Math.round(performance.now() - started)} ms`);
