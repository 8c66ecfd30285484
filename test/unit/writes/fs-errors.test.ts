import { afterAll, describe, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IndxError } from "../../../src/core/errors.ts";
import { writeFileAtomic } from "../../../src/writes/atomic.ts";
import { writeError } from "../../../src/writes/fs-errors.ts";

const dir = mkdtempSync(join(tmpdir(), "indx-fs-errors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The error a real system call throws. */
function thrownBy(fn: () => void): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected the call to fail");
}

describe("file system errors of a write become typed errors without paths", () => {
  test("a full disk (a real ENOSPC from /dev/full) is disk_full: HTTP 507, its own exit code", () => {
    const fd = openSync("/dev/full", "w");
    const err = thrownBy(() => writeSync(fd, new Uint8Array(4096)));
    closeSync(fd);
    expect((err as NodeJS.ErrnoException).code).toBe("ENOSPC");
    const mapped = writeError(err);
    expect(mapped.code).toBe("disk_full");
    expect(mapped.httpStatus).toBe(507);
    expect(mapped.exitCode).toBe(9);
    expect(mapped.message).not.toContain("/");
    expect(mapped.details).toEqual({ reason: "ENOSPC" });
  });

  test("the atomic writer's own failures come out mapped: a 300-byte name is path_invalid naming the limit, no temp file stays", () => {
    const err = thrownBy(() => writeFileAtomic(join(dir, `${"x".repeat(297)}.md`), new TextEncoder().encode("x")));
    expect(err).toBeInstanceOf(IndxError);
    expect((err as IndxError).code).toBe("path_invalid");
    expect((err as IndxError).message).toContain("255 bytes");
    expect((err as IndxError).message).not.toContain(dir);
    expect(readdirSync(dir)).toEqual([]);
  });

  test("anything unknown stays internal, with the errno as the only detail", () => {
    const err = thrownBy(() => openSync(join(dir, "missing", "x"), "r"));
    const mapped = writeError(err);
    expect([mapped.code, mapped.details]).toEqual(["internal", { reason: "ENOENT" }]);
    expect(mapped.message).not.toContain(dir);
  });
});
