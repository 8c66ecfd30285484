import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, lstatSync, openSync, readdirSync, realpathSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { renameOver } from "../core/rename-over.ts";
import { writeError } from "./fs-errors.ts";

/** Temp files are hidden, so the scanner and the watcher never take them for notes. */
export const TEMP_PREFIX = ".indx-tmp-";

export interface AtomicWriteOptions {
  mode?: number;
  /**
   * The folder fsync is the caller's, once for every file it replaces in that folder
   * (syncFolders), before it reports any of them written: the folder is added here instead. Until
   * then a crash may undo the rename, which leaves the old file whole.
   */
  folders?: Set<string>;
}

/**
 * Replaces a file's bytes so that a reader (or a crash at any instant) sees either the old
 * file or the new one, never a torn mix: write a temp file in the same folder, fsync it,
 * rename it over the target, fsync the folder. The target's file mode is kept.
 */
export function writeFileAtomic(abs: string, bytes: Uint8Array, opts: AtomicWriteOptions = {}): void {
  try {
    replaceFile(abs, bytes, opts);
  } catch (err) {
    throw writeError(err);
  }
}

/** Makes the renames into these folders durable (writeFileAtomic's `folders`). */
export function syncFolders(dirs: Iterable<string>): void {
  for (const dir of dirs) fsyncDir(dir);
}

function replaceFile(abs: string, bytes: Uint8Array, { mode: modeOverride, folders }: AtomicWriteOptions): void {
  const dir = dirname(abs);
  const mode = modeOverride ?? existingMode(abs) ?? 0o644;
  const temp = join(dir, `${TEMP_PREFIX}${basename(abs).slice(0, 40)}-${randomBytes(6).toString("hex")}`);
  const fd = openSync(temp, "wx", mode);
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkQuietly(temp);
    throw err;
  }
  closeSync(fd);
  try {
    renameOver(temp, abs);
  } catch (err) {
    unlinkQuietly(temp);
    throw err;
  }
  if (folders) folders.add(dir);
  else fsyncDir(dir);
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
