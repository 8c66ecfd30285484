#!/usr/bin/env bun
/**
 * Moves files and folders by a mapping table and keeps every import working (docs/architecture.md,
 * Moving files). `bun scripts/dev/move.ts scripts/dev/moves/26-layers.txt [--dry-run]`
 *
 * 1. `git mv`s every tracked file the table maps (a file entry, or any file under a folder entry
 *    ending in "/") whose new place is still free;
 * 2. rewrites, in every .ts file of src/, test/ and scripts/, each relative import, export,
 *    dynamic import and `new URL("…", import.meta.url)` (workers) that named a moved file, and
 *    each import of a moved file, from its new place;
 * 3. rewrites "src/…" paths in strings and docs (scripts/build.ts's worker entrypoints, docs/*.md);
 * 4. lets Biome put the rewritten files' imports back in order.
 *
 * It can run again on a tree where some files are moved and others (a branch merged after the
 * move) still import old paths: an import that no longer resolves is looked up in the table.
 * Table lines: `old new`, blank lines and `#` comments ignored.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { importsOf, isFile, resolveSpec, specFor } from "./imports.ts";

interface Entry {
  from: string;
  to: string;
  folder: boolean;
}

export function readTable(text: string): Entry[] {
  const out: Entry[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.replace(/#.*/, "").trim();
    if (line === "") continue;
    const [from, to, extra] = line.split(/\s+/);
    if (from === undefined || to === undefined || extra !== undefined) throw new Error(`bad line: ${raw}`);
    const folder = from.endsWith("/");
    if (folder !== to.endsWith("/")) throw new Error(`a folder maps to a folder: ${raw}`);
    out.push({ from, to, folder });
  }
  return out;
}

/** Where the table sends `path`, or null: a file entry first, else the longest folder entry. */
export function mapPath(table: Entry[], path: string): string | null {
  const file = table.find((e) => !e.folder && e.from === path);
  if (file) return file.to;
  let best: Entry | null = null;
  for (const e of table) if (e.folder && path.startsWith(e.from) && (best === null || e.from.length > best.from.length)) best = e;
  return best ? best.to + path.slice(best.from.length) : null;
}

function git(args: string[]): string {
  const p = Bun.spawnSync(["git", ...args], { stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${p.stderr.toString()}`);
  return p.stdout.toString();
}

function main(): void {
  const [tablePath, ...flags] = process.argv.slice(2);
  if (tablePath === undefined) throw new Error("usage: bun scripts/dev/move.ts <table> [--dry-run]");
  const dry = flags.includes("--dry-run");
  const table = readTable(readFileSync(tablePath, "utf8"));

  // 1. The moves.
  const oldOf = new Map<string, string>();
  for (const file of git(["ls-files", "src", "test", "scripts"]).split("\n").filter(Boolean)) {
    const to = mapPath(table, file);
    if (to === null || to === file || !isFile(file)) continue;
    if (isFile(to)) {
      console.warn(`skip ${file}: ${to} exists`);
      continue;
    }
    console.log(`mv ${file} ${to}`);
    if (!dry) {
      mkdirSync(dirname(to), { recursive: true });
      git(["mv", file, to]);
    }
    oldOf.set(to, file);
  }

  // 2. The imports.
  const sources = [...new Bun.Glob("{src,test,scripts}/**/*.ts").scanSync(".")].map((f) => f.split("\\").join("/"));
  let rewritten = 0;
  const touched = new Set<string>();
  const unresolved: string[] = [];
  for (const file of sources) {
    const origin = oldOf.get(file) ?? file;
    const source = readFileSync(file, "utf8");
    const real = new Set(importsOf(source).map((i) => i.at));
    let out = "";
    let last = 0;
    for (const imp of importsOf(source, true)) {
      const was = resolveSpec(origin, imp.spec);
      if (was === null) continue;
      let target: string;
      if (origin !== file) target = mapPath(table, was) ?? was;
      else if (isFile(was)) continue;
      else target = mapPath(table, was) ?? was;
      if (!isFile(target) && real.has(imp.at)) unresolved.push(`${file}: ${imp.spec}`);
      const spec = specFor(file, target);
      if (spec === imp.spec) continue;
      out += source.slice(last, imp.at + 1) + spec;
      last = imp.at + 1 + imp.spec.length;
      rewritten++;
    }
    if (last > 0 && !dry) {
      writeFileSync(file, out + source.slice(last));
      touched.add(file);
    }
  }

  // 3. "src/…" paths in strings and docs.
  const texts = [...sources, ...new Bun.Glob("{docs/*.md,README.md,package.json,knip.json,biome.jsonc}").scanSync(".")];
  let paths = 0;
  for (const file of texts) {
    const source = readFileSync(file, "utf8");
    const next = source.replace(/\bsrc\/[\w./-]+\.ts\b/g, (p) => {
      if (isFile(p)) return p;
      const to = mapPath(table, p);
      if (to === null) return p;
      paths++;
      return to;
    });
    if (next !== source && !dry) {
      writeFileSync(file, next);
      if (file.endsWith(".ts")) touched.add(file);
    }
  }

  // 4. Import order (the rewritten paths sort differently).
  if (touched.size > 0) Bun.spawnSync(["bunx", "biome", "check", "--write", "--linter-enabled=false", ...touched], { stdout: "inherit", stderr: "inherit" });

  console.log(`${oldOf.size} files moved, ${rewritten} imports and ${paths} paths rewritten`);
  if (unresolved.length > 0) {
    console.error(`unresolved imports:\n  ${unresolved.join("\n  ")}`);
    process.exitCode = 1;
  }
}

if (import.meta.main) main();
