#!/usr/bin/env bun
/**
 * Binary size per release target with and without --minify and --bytecode, and the start-up of
 * `indx --help` for each variant of the host's binary (median of 15 runs). Slow (twenty
 * compiles): not part of `bun run bench`. `--targets linux-x64` measures fewer.
 */
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildBinary, hostTarget, TARGETS, type Target, vecLibraryOf } from "../build.ts";
import { installEveryVecPackage } from "../release.ts";
import { emit, median, outDir, round } from "./common.ts";

const { values } = parseArgs({ options: { targets: { type: "string" } } });
const targets = (values.targets?.split(",") ?? [...TARGETS]) as Target[];
const variants = [
  { name: "plain", minify: false, bytecode: false },
  { name: "minify", minify: true, bytecode: false },
  { name: "bytecode", minify: false, bytecode: true },
  { name: "minify+bytecode", minify: true, bytecode: true },
];

function startupMs(bin: string): number {
  const times: number[] = [];
  for (let i = 0; i < 17; i++) {
    const started = performance.now();
    Bun.spawnSync([bin, "--help"], { stdout: "ignore", stderr: "ignore" });
    if (i >= 2) times.push(performance.now() - started);
  }
  return round(median(times), 1);
}

const vecRoot = installEveryVecPackage();
const dir = outDir("binary-size");
try {
  for (const target of targets)
    for (const v of variants) {
      const outfile = join(dir, `${target}-${v.name}`, target === "windows-x64" ? "indx.exe" : "indx");
      buildBinary({ target, outfile, vecLibrary: vecLibraryOf(target, [vecRoot]), minify: v.minify, bytecode: v.bytecode });
      const mb = round(statSync(outfile).size / 1024 / 1024, 1);
      emit({ bench: "binary_size", target, variant: v.name, mb, ...(target === hostTarget() ? { help_startup_ms: startupMs(outfile) } : {}) });
      if (target !== hostTarget()) rmSync(outfile);
    }
} finally {
  rmSync(vecRoot, { recursive: true, force: true });
}
