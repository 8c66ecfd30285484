import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { storageError } from "../../../src/vault/vault.ts";

/** What the system says when the data folder's disk is full or cannot be written, as Node reports it. */
const errno = (code: string, path?: string) => Object.assign(new Error(`${code}: something, write '${path ?? ""}'`), { code, ...(path ? { path } : {}) });

test("ENOSPC and EDQUOT anywhere are disk_full naming the data folder by its last part only", () => {
  const dir = "/home/someone/.local/share/indx/vaults/notes-1a2b";
  for (const code of ["ENOSPC", "EDQUOT"]) {
    const e = storageError(errno(code, `${dir}/write.lock`), dir);
    expect(e?.code).toBe("disk_full");
    expect(e?.message).toContain("…/notes-1a2b");
    expect(e?.message).not.toContain("/home/someone");
  }
});

test("EROFS, EACCES and EPERM inside the data folder are data_dir_unusable with the reason; outside it they are not ours to name", () => {
  const dir = "/srv/indx/data";
  const ro = storageError(errno("EROFS", `${dir}/events.log`), dir);
  expect(ro?.code).toBe("data_dir_unusable");
  expect(ro?.details).toMatchObject({ reason: "read_only_file_system", folder: "data" });
  expect(storageError(errno("EACCES", `${dir}/state.db`), dir)?.details?.reason).toBe("not_writable");
  expect(storageError(errno("EACCES", "/srv/vault/Note.md"), dir)).toBeNull();
  expect(storageError(errno("EACCES", "/srv/indx/data-other/x"), dir)).toBeNull();
});

test("a data folder that is a file is named as such; other errors are left alone", () => {
  const tmp = mkdtempSync(join(tmpdir(), "indx-storage-"));
  try {
    const file = join(tmp, "data");
    writeFileSync(file, "");
    expect(storageError(errno("ENOTDIR", `${file}/index.db`), file)?.code).toBe("data_dir_unusable");
    expect(storageError(new Error("something else"), tmp)).toBeNull();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
