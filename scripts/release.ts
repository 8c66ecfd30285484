#!/usr/bin/env bun
/**
 * Builds a release: every target's binary, its archive (tar.gz; zip for Windows) with the
 * LICENSE, README and CHANGELOG, SHA256SUMS, and from those sums the Homebrew formula and the
 * Scoop manifest (written to release/ and to packaging/, where a release commit keeps them),
 * plus install.sh. Slow (five cross-compiles): CI never runs it; test/unit/release checks the
 * generators on a fake set of archives.
 *
 *   bun scripts/release.ts [--targets linux-x64,linux-arm64] [--out release]
 *
 * Every platform's sqlite-vec package is installed into a scratch folder first (bun install
 * --os=* --cpu=*), so the build can embed each target's own library.
 */
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildBinary, TARGETS, type Target, vecLibraryOf } from "./build.ts";
import { archiveName, checksumsOf, homebrewFormula, parseChecksums, type ReleaseInfo, scoopManifest } from "./release/packaging.ts";

const ROOT = resolve(import.meta.dir, "..");
const DOCS = ["LICENSE", "README.md", "CHANGELOG.md"];

function run(cmd: string[], cwd: string): void {
  const p = Bun.spawnSync(cmd, { cwd, stdout: "inherit", stderr: "inherit" });
  if (p.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed (exit ${p.exitCode})`);
}

export function releaseInfo(): ReleaseInfo {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  const repo = /github\.com\/([^/]+\/[^/.]+)/.exec(pkg.repository?.url ?? "")?.[1];
  if (!repo) throw new Error("package.json needs repository.url on github.com");
  return { version: pkg.version, repo, description: pkg.description };
}

/** Every platform's sqlite-vec, in a scratch node_modules (the project's own stays as it is). */
export function installEveryVecPackage(): string {
  const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).dependencies["sqlite-vec"];
  const dir = mkdtempSync(join(tmpdir(), "indx-release-vec-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "vec-all", private: true, dependencies: { "sqlite-vec": version } }));
  run(["bun", "install", "--os=*", "--cpu=*", "--no-save"], dir);
  return dir;
}

function archive(target: Target, binary: string, out: string): void {
  const stage = mkdtempSync(join(tmpdir(), `indx-stage-${target}-`));
  copyFileSync(binary, join(stage, target.startsWith("windows") ? "indx.exe" : "indx"));
  for (const doc of DOCS) copyFileSync(join(ROOT, doc), join(stage, doc));
  const file = join(out, archiveName(target));
  rmSync(file, { force: true });
  const names = [target.startsWith("windows") ? "indx.exe" : "indx", ...DOCS];
  if (file.endsWith(".zip")) run(["zip", "-q", "-X", file, ...names], stage);
  else run(["tar", "--owner=0", "--group=0", "--numeric-owner", "-czf", file, ...names], stage);
  rmSync(stage, { recursive: true, force: true });
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

if (import.meta.main) {
  const { values } = parseArgs({ options: { targets: { type: "string" }, out: { type: "string" } } });
  const targets = (values.targets?.split(",") ?? [...TARGETS]) as Target[];
  for (const t of targets) if (!TARGETS.includes(t)) throw new Error(`unknown target ${t}; targets: ${TARGETS.join(", ")}`);
  const out = resolve(values.out ?? join(ROOT, "release"));
  const info = releaseInfo();
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });

  const vecRoot = installEveryVecPackage();
  const binaries = join(out, "bin");
  try {
    for (const target of targets) {
      const started = performance.now();
      const binary = join(binaries, target, target.startsWith("windows") ? "indx.exe" : "indx");
      buildBinary({ target, outfile: binary, vecLibrary: vecLibraryOf(target, [vecRoot]) });
      archive(target, binary, out);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.error(
        `${target}: binary ${mb(statSync(binary).size)}, ${archiveName(target)} ${mb(statSync(join(out, archiveName(target))).size)} (${seconds} s)`,
      );
    }
  } finally {
    rmSync(vecRoot, { recursive: true, force: true });
  }

  const sumsText = checksumsOf(out);
  writeFileSync(join(out, "SHA256SUMS"), sumsText);
  cpSync(join(ROOT, "packaging", "install.sh"), join(out, "install.sh"));
  if (targets.length === TARGETS.length) {
    const sums = parseChecksums(sumsText);
    const formula = homebrewFormula(info, sums);
    const manifest = `${JSON.stringify(scoopManifest(info, sums), null, 2)}\n`;
    writeFileSync(join(out, "indx.rb"), formula);
    writeFileSync(join(out, "indx.json"), manifest);
    mkdirSync(join(ROOT, "packaging", "homebrew"), { recursive: true });
    mkdirSync(join(ROOT, "packaging", "scoop"), { recursive: true });
    writeFileSync(join(ROOT, "packaging", "homebrew", "indx.rb"), formula);
    writeFileSync(join(ROOT, "packaging", "scoop", "indx.json"), manifest);
    console.error(`v${info.version}: ${out} (archives, SHA256SUMS, install.sh, indx.rb, indx.json); packaging/ updated`);
  } else {
    console.error(`${out}: archives and SHA256SUMS for ${targets.join(", ")} (the formula and manifest need every target)`);
  }
}
