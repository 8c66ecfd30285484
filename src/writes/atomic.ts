import { closeSync, type Dirent, fsyncSync, lstatSync, openSync, readdirSync, realpathSync, statSync, unlinkSync, writeSync } from "node:fs";
import { open, rename } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { IndxError } from "../core/errors.ts";
import { randomHex } from "../core/random.ts";
import { renameOver } from "../core/rename-over.ts";
import { writeError } from "./fs-errors.ts";

/** Temp files are hidden, so the scanner and the watcher never take them for notes. */
export const TEMP_PREFIX = ".indx-tmp-";

/** A file's new bytes, durable in a hidden temp file beside it: renaming the temp file over it is the write. */
export interface StagedFile {
  target: string;
  temp: string;
}

/**
 * Replaces a file's bytes so that a reader (or a crash at any instant) sees either the old
 * file or the new one, never a torn mix: write a temp file in the same folder, fsync it,
 * rename it over the target, fsync the folder. The target's file mode is kept.
 */
export function writeFileAtomic(abs: string, bytes: Uint8Array, opts: { mode?: number } = {}): void {
  let staged: StagedFile;
  try {
    const { temp, fd } = writeTemp(abs, bytes, opts.mode);
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    staged = { target: abs, temp };
  } catch (err) {
    throw writeError(err);
  }
  commitStaged(staged);
  fsyncDir(dirname(abs));
}

/** Temp files fsynced at once by stageFiles: enough for the file system to commit them together, few enough open files. */
const STAGED_AT_ONCE = 32;

/**
 * The new bytes of several files, each in its temp file and made durable, nothing renamed yet.
 * The fsyncs run at once, so the file system commits them in a few journal transactions rather
 * than one per file (docs/decisions.md, "Writes in batches"). One result per file, in order: the
 * staged file, or the error that file met.
 */
export async function stageFiles(files: readonly { target: string; bytes: Uint8Array }[]): Promise<(StagedFile | IndxError)[]> {
  const staged: (StagedFile | IndxError)[] = [];
  for (let i = 0; i < files.length; i += STAGED_AT_ONCE) staged.push(...(await Promise.all(files.slice(i, i + STAGED_AT_ONCE).map(stageFile))));
  return staged;
}

/**
 * One file staged off the thread that answers requests: creating, writing and fsyncing a file wait
 * on the file system's journal, which a busy disk makes milliseconds each (docs/decisions.md,
 * "One queue of writers per vault").
 */
async function stageFile({ target, bytes }: { target: string; bytes: Uint8Array }): Promise<StagedFile | IndxError> {
  const temp = tempBeside(target);
  let file: Awaited<ReturnType<typeof open>>;
  try {
    file = await open(temp, "wx", existingMode(target) ?? 0o644);
  } catch (err) {
    return writeError(err);
  }
  try {
    let off = 0;
    while (off < bytes.length) off += (await file.write(bytes, off, bytes.length - off)).bytesWritten;
    await file.sync();
    return { target, temp };
  } catch (err) {
    unlinkQuietly(temp);
    return writeError(err);
  } finally {
    await file.close();
  }
}

/** Renames a staged file over its target; the rename is durable once its folder is fsynced (syncFolders). */
export function commitStaged(staged: StagedFile): void {
  try {
    renameOver(staged.temp, staged.target);
  } catch (err) {
    unlinkQuietly(staged.temp);
    throw writeError(err);
  }
}

/**
 * commitStaged off this thread where a rename is one call (POSIX); Windows keeps renameOver's
 * retries while another program holds the target open.
 */
export async function commitStagedAsync(staged: StagedFile): Promise<void> {
  if (process.platform === "win32") return commitStaged(staged);
  try {
    await rename(staged.temp, staged.target);
  } catch (err) {
    unlinkQuietly(staged.temp);
    throw writeError(err);
  }
}

export function discardStaged(staged: StagedFile): void {
  unlinkQuietly(staged.temp);
}

/** Makes the renames into these folders durable, the folders fsynced together off this thread. */
export async function syncFolders(dirs: Iterable<string>): Promise<void> {
  await Promise.all([...dirs].map(fsyncDirAsync));
}

/** The bytes in a new hidden temp file beside `abs` (its mode, unless given), open for the fsync. */
function writeTemp(abs: string, bytes: Uint8Array, modeOverride?: number): { temp: string; fd: number } {
  const mode = modeOverride ?? existingMode(abs) ?? 0o644;
  const temp = tempBeside(abs);
  const fd = openSync(temp, "wx", mode);
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
  } catch (err) {
    closeSync(fd);
    unlinkQuietly(temp);
    throw err;
  }
  return { temp, fd };
}

/** Renames within one file system and makes the rename durable in both folders. */
export function renameDurable(fromAbs: string, toAbs: string): void {
  try {
    renameOver(fromAbs, toAbs);
  } catch (err) {
    throw writeError(err);
  }
  fsyncDir(dirname(toAbs));
  if (dirname(fromAbs) !== dirname(toAbs)) fsyncDir(dirname(fromAbs));
}

export function unlinkDurable(abs: string): void {
  try {
    unlinkSync(abs);
  } catch (err) {
    throw writeError(err);
  }
  fsyncDir(dirname(abs));
}

/**
 * A note that is a symlink to another vault file is edited where it really lives, so the link
 * survives; the caller has already checked that the real path is inside the vault.
 */
export function writeTarget(abs: string): string {
  try {
    return lstatSync(abs).isSymbolicLink() ? realpathSync(abs) : abs;
  } catch {
    return abs;
  }
}

function existingMode(abs: string): number | null {
  try {
    return statSync(abs).mode & 0o7777;
  } catch {
    return null;
  }
}

function tempBeside(abs: string): string {
  return join(dirname(abs), `${TEMP_PREFIX}${basename(abs).slice(0, 40)}-${randomHex(6)}`);
}

async function fsyncDirAsync(dir: string): Promise<void> {
  // As fsyncDir: some file systems refuse a folder's fsync, which is fine.
  try {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {}
}

function fsyncDir(dir: string): void {
  // Directory fsync makes the rename itself durable; some file systems refuse it, which is fine.
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {}
}

function unlinkQuietly(abs: string): void {
  try {
    unlinkSync(abs);
  } catch {}
}

const STALE_TEMP_MS = 60_000;

/**
 * removeStaleTemps in every folder of the vault that writes reach (`skipFolder` says which are out,
 * by vault-relative path): run at start-up, so a killed writer's temp file does not linger until a
 * later write happens to land in the same folder (docs/decisions.md, "Temp files swept at start").
 */
export function sweepStaleTemps(root: string, skipFolder: (rel: string) => boolean, now = Date.now()): number {
  let removed = 0;
  const pending = [""];
  for (let rel = pending.pop(); rel !== undefined; rel = pending.pop()) {
    const dir = rel === "" ? root : join(root, rel);
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    let hasTemp = false;
    for (const e of entries) {
      if (e.name.startsWith(TEMP_PREFIX)) hasTemp = true;
      else if (e.isDirectory()) {
        const sub = rel === "" ? e.name : `${rel}/${e.name}`;
        if (!skipFolder(sub)) pending.push(sub);
      }
    }
    if (hasTemp) removed += removeStaleTemps(dir, now);
  }
  return removed;
}

/**
 * A writer killed mid-write (SIGKILL, power loss) leaves its hidden temp file behind. No write
 * takes a minute, so older temp files in a folder are leftovers and are removed.
 */
export function removeStaleTemps(dir: string, now = Date.now()): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const abs = join(dir, name);
    try {
      if (now - statSync(abs).mtimeMs > STALE_TEMP_MS) {
        unlinkSync(abs);
        removed++;
      }
    } catch {}
  }
  return removed;
}
