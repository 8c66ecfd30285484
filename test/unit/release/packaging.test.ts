import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TARGETS } from "../../../scripts/build.ts";
import { archiveName, checksumsOf, downloadBase, homebrewFormula, parseChecksums, scoopManifest } from "../../../scripts/release/packaging.ts";
import { releaseInfo } from "../../../scripts/release.ts";

/**
 * The release's generated files against the checksums of a small fake set of archives (CI never
 * builds the five real targets): each formula or manifest entry must name an archive and carry
 * exactly that archive's SHA-256.
 */
const dir = mkdtempSync(join(tmpdir(), "indx-release-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const sha = (bytes: string) => createHash("sha256").update(bytes).digest("hex");
for (const t of TARGETS) writeFileSync(join(dir, archiveName(t)), `fake archive of ${t}`);
writeFileSync(join(dir, "notes.txt"), "not an archive");
const info = releaseInfo();
const sums = parseChecksums(checksumsOf(dir));

describe("release packaging", () => {
  test("SHA256SUMS lists every archive (and nothing else) with its digest, in sha256sum's format", () => {
    const text = checksumsOf(dir);
    expect(text.trim().split("\n")).toHaveLength(TARGETS.length);
    for (const t of TARGETS) expect(text).toContain(`${sha(`fake archive of ${t}`)}  ${archiveName(t)}\n`);
    expect(text).not.toContain("notes.txt");
    expect(() => parseChecksums("abc  file.tar.gz")).toThrow(/not a checksum line/);
  });

  test("the Homebrew formula pairs each macOS and Linux archive URL with its own checksum", () => {
    const rb = homebrewFormula(info, sums);
    const pairs = [...rb.matchAll(/url "([^"]+)"\n\s+sha256 "([0-9a-f]{64})"/g)].map((m) => [m[1]!, m[2]!] as const);
    expect(pairs).toHaveLength(4);
    for (const [url, sum] of pairs) {
      const file = url.slice(url.lastIndexOf("/") + 1);
      expect(url).toBe(`${downloadBase(info)}/${file}`);
      expect(sum).toBe(sha(`fake archive of ${file.replace(/^indx-|\.tar\.gz$/g, "")}`));
    }
    // Each architecture block names its own archive.
    expect(rb).toMatch(/on_macos do\s+on_arm do\s+url "[^"]+indx-darwin-arm64\.tar\.gz"/);
    expect(rb).toMatch(/on_linux do\s+on_arm do\s+url "[^"]+indx-linux-arm64\.tar\.gz"/);
    expect(rb).toContain(`version "${info.version}"`);
    expect(rb).toContain('bin.install "indx"');
    expect(rb).toContain(`generate_completions_from_executable(bin/"indx", "completion")`);
  });

  test("the Scoop manifest names the Windows zip with its checksum", () => {
    const m = scoopManifest(info, sums) as { version: string; bin: string; architecture: { "64bit": { url: string; hash: string } } };
    expect(m.version).toBe(info.version);
    expect(m.bin).toBe("indx.exe");
    expect(m.architecture["64bit"]).toEqual({ url: `${downloadBase(info)}/indx-windows-x64.zip`, hash: sha("fake archive of windows-x64") });
  });

  test("a missing archive is an error, not a formula without it", () => {
    const partial = new Map(sums);
    partial.delete(archiveName("darwin-x64"));
    expect(() => homebrewFormula(info, partial)).toThrow(/no indx-darwin-x64\.tar\.gz/);
  });

  test("install.sh and the committed packaging files name the repository of package.json", () => {
    const root = join(import.meta.dir, "..", "..", "..");
    expect(readFileSync(join(root, "packaging", "install.sh"), "utf8")).toContain(`REPO="${info.repo}"`);
    const committed = parseChecksums(
      [...readFileSync(join(root, "packaging", "homebrew", "indx.rb"), "utf8").matchAll(/url "[^"]+\/([^"/]+)"\n\s+sha256 "([0-9a-f]{64})"/g)]
        .map((m) => `${m[2]}  ${m[1]}`)
        .join("\n"),
    );
    const manifest = JSON.parse(readFileSync(join(root, "packaging", "scoop", "indx.json"), "utf8"));
    committed.set("indx-windows-x64.zip", manifest.architecture["64bit"].hash);
    // The committed files are exactly what the generators make from their own checksums.
    expect(readFileSync(join(root, "packaging", "homebrew", "indx.rb"), "utf8")).toBe(homebrewFormula(info, committed));
    expect(manifest).toEqual(scoopManifest(info, committed));
  });
});

describe("install.sh", () => {
  const root = join(import.meta.dir, "..", "..", "..");
  const site = join(dir, "site");
  const fakeBinary = "#!/bin/sh\necho 9.9.9\n";

  function publish(target: string, tamper = false): void {
    const stage = join(dir, `stage-${target}`);
    mkdirSync(stage, { recursive: true });
    writeFileSync(join(stage, "indx"), fakeBinary, { mode: 0o755 });
    mkdirSync(site, { recursive: true });
    const archive = join(site, `indx-${target}.tar.gz`);
    expect(Bun.spawnSync(["tar", "-czf", archive, "indx"], { cwd: stage }).exitCode).toBe(0);
    writeFileSync(join(site, "SHA256SUMS"), checksumsOf(site));
    if (tamper) writeFileSync(archive, "tampered");
  }

  function install(target: string) {
    const bin = join(dir, `bin-${target}`);
    const p = Bun.spawnSync(["sh", join(root, "packaging", "install.sh")], {
      env: { PATH: process.env.PATH ?? "", HOME: dir, INDX_DOWNLOAD_URL: `file://${site}`, INDX_INSTALL_DIR: bin, INDX_TARGET: target },
      stderr: "pipe",
    });
    return { code: p.exitCode, stderr: p.stderr.toString(), bin };
  }

  test("downloads the archive of the platform, checks it against SHA256SUMS and installs the binary", () => {
    publish("linux-arm64");
    const r = install("linux-arm64");
    expect(r.stderr).toContain("installed indx 9.9.9");
    expect(r.code).toBe(0);
    expect(readFileSync(join(r.bin, "indx"), "utf8")).toBe(fakeBinary);
    expect(r.stderr).toContain("add "); // the folder is not on PATH
  });

  test("a download whose checksum does not match is not installed", () => {
    publish("darwin-arm64", true);
    const r = install("darwin-arm64");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("checksum mismatch for indx-darwin-arm64.tar.gz");
    expect(() => readFileSync(join(r.bin, "indx"))).toThrow();
  });

  test("an unknown platform is refused in words", () => {
    const r = install("solaris-sparc");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("unknown target solaris-sparc");
  });
});
