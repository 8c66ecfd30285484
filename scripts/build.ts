#!/usr/bin/env bun
/**
 * Compiles indx into one executable: dist/indx for this machine, or any release target with
 * `--target linux-arm64` (darwin-x64, darwin-arm64, windows-x64, …) and `--outfile`. Minify +
 * splitting + bytecode keep start-up to a few milliseconds (docs/stack.md, Build): commands load
 * their code lazily. `--no-minify` / `--no-bytecode` are there to measure what they give.
 *
 * The index, rows, stat, reader and check workers are entrypoints of their own (Bun bundles a Worker's
 * file only when it is one). `[name]` entry naming puts them at the root of the embedded files,
 * beside the chunks, so `new URL("./index-worker.ts", import.meta.url)` in worker-runner.ts (and
 * "./rows-worker.ts" in rows-pipeline.ts, "./stat-worker.ts" in stat-files.ts, "./reader-worker.ts"
 * in reader-pool.ts) finds them there as it finds the source file next to itself when run from
 * source.
 *
 * The target's sqlite-vec library is one more entrypoint: Bun embeds it as a file, named as it
 * is (`--asset-naming`), and src/index/storage/sqlite-vec.ts finds it in Bun.embeddedFiles. Which file
 * is resolved here, per target, from the target's sqlite-vec package.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { vecLibraryFor } from "../src/index/storage/sqlite-vec.ts";

export const TARGETS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "windows-x64"] as const;
export type Target = (typeof TARGETS)[number];

export function hostTarget(): Target {
  const os = process.platform === "win32" ? "windows" : process.platform;
  const target = `${os}-${process.arch}`;
  if (!(TARGETS as readonly string[]).includes(target)) throw new Error(`no release target for ${target}`);
  return target as Target;
}

/** The sqlite-vec library of a target, from the first of `roots` whose node_modules has its package. */
export function vecLibraryOf(target: Target, roots: string[] = [process.cwd()]): string {
  const [os, arch] = target.split("-") as [string, string];
  const lib = vecLibraryFor(os === "windows" ? "win32" : (os as NodeJS.Platform), arch)!;
  for (const root of roots) {
    try {
      return Bun.resolveSync(`${lib.pkg}/${lib.file}`, root);
    } catch {}
  }
  throw new Error(`${lib.pkg} is not installed (scripts/release.ts installs every platform's package)`);
}

export interface BuildOptions {
  target: Target;
  outfile: string;
  vecLibrary: string;
  minify?: boolean;
  bytecode?: boolean;
}

export function buildBinary(o: BuildOptions): void {
  rmSync(o.outfile, { force: true });
  const proc = Bun.spawnSync(
    [
      "bun",
      "build",
      "src/main.ts",
      "src/index/build/index-worker.ts",
      "src/index/build/rows-worker.ts",
      "src/index/build/document-worker.ts",
      "src/app/reader-worker.ts",
      "src/vault/stat-worker.ts",
      "src/index/storage/check-worker.ts",
      o.vecLibrary,
      "--compile",
      `--target=bun-${o.target}`,
      ...(o.minify === false ? [] : ["--minify"]),
      "--splitting",
      ...(o.bytecode === false ? [] : ["--bytecode"]),
      "--format=esm",
      "--entry-naming",
      "[name].[ext]",
      "--asset-naming",
      "[name].[ext]",
      "--outfile",
      o.outfile,
    ],
    { stdout: "inherit", stderr: "inherit" },
  );
  if (proc.exitCode !== 0) throw new Error(`bun build failed for ${o.target} (exit ${proc.exitCode})`);
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      target: { type: "string" },
      outfile: { type: "string" },
      "no-minify": { type: "boolean" },
      "no-bytecode": { type: "boolean" },
    },
  });
  const target = (values.target ?? hostTarget()) as Target;
  if (!TARGETS.includes(target)) throw new Error(`--target must be one of ${TARGETS.join(", ")}`);
  const outfile = values.outfile ?? join("dist", target === "windows-x64" ? "indx.exe" : "indx");
  if (!values.outfile) rmSync("dist", { recursive: true, force: true });
  const started = performance.now();
  buildBinary({ target, outfile, vecLibrary: vecLibraryOf(target), minify: !values["no-minify"], bytecode: !values["no-bytecode"] });
  console.error(`built ${outfile} (${target}) in ${Math.round(performance.now() - started)} ms`);
}
