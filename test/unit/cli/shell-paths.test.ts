import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commandOnPath, logicalCwd } from "../../../src/cli/shell-paths.ts";

/** Paths as the user sees them (issue 29: init printed the symlink-resolved binary and vault). */

let dir: string;
beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "indx-shell-paths-")));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the binary as PATH reaches it", () => {
  test("a package manager's link on PATH wins over the versioned file it points to", () => {
    const cellar = join(dir, "Cellar", "indx", "1.2.3", "bin");
    const bin = join(dir, "bin");
    const other = join(dir, "other");
    for (const d of [cellar, bin, other]) mkdirSync(d, { recursive: true });
    const exe = join(cellar, "indx");
    writeFileSync(exe, "#!/bin/sh\n");
    chmodSync(exe, 0o755);
    symlinkSync(exe, join(bin, "indx"));
    // An unrelated indx earlier on PATH is not this binary.
    writeFileSync(join(other, "indx"), "#!/bin/sh\n");
    chmodSync(join(other, "indx"), 0o755);
    expect(commandOnPath(exe, { PATH: [other, bin].join(":") })).toBe(join(bin, "indx"));
    expect(commandOnPath(exe, { PATH: other })).toBe(exe);
    expect(commandOnPath(exe, {})).toBe(exe);
  });
});

describe("the current folder as pwd shows it", () => {
  test("$PWD through a symlink is kept when it is the same folder; a stale $PWD is not", () => {
    const real = join(dir, "real");
    const link = join(dir, "link");
    mkdirSync(real);
    symlinkSync(real, link);
    expect(logicalCwd({ PWD: link }, real)).toBe(link);
    expect(logicalCwd({ PWD: dir }, real)).toBe(real);
    expect(logicalCwd({}, real)).toBe(real);
  });
});
