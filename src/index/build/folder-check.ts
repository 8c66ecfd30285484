import { statSync } from "node:fs";
import { type FolderStamp, readFolder } from "../../vault/scan.ts";
import type { Vault } from "../../vault/vault.ts";
import type { FileStamp } from "../storage/queries/files.ts";
import type { IndexStore } from "../storage/store.ts";

/**
 * The CLI's quick check (docs/decisions.md, "A CLI read that is current and fast"): instead of
 * statting every file, it stats every folder the last full pass walked. Adding, deleting or
 * renaming a file moves its folder's mtime (so does an editor's save that writes a temporary file
 * and renames it over the note); only the folders that moved are read again, and only their files
 * statted. A file edited in place moves no folder: the CLI checks the notes it answers with
 * (src/cli/refresh.ts), a running server's watcher sees the rest.
 */

/** The meta key of the folder stamps, written by every full pass and by the quick check. */
const FOLDERS_KEY = "folder_stamps";

/**
 * A folder whose mtime is this close to the moment it was read may change again within the same
 * mtime tick (a second on HFS+, two on FAT) without its mtime moving: it is stored as -1, read
 * again at the next check.
 */
const RACY_MS = 2_000;

/** Folder stamps as stored: a folder changed too recently to be trusted gets -1. */
export function saveFolderStamps(store: IndexStore, folders: readonly FolderStamp[], now = Date.now()): void {
  store.setMeta(FOLDERS_KEY, JSON.stringify(folders.map(([path, mtimeMs]) => [path, now - mtimeMs < RACY_MS ? -1 : mtimeMs])));
}

export interface FolderCheck {
  /** Vault paths (as indexed) that were added, deleted or replaced in the folders that moved. */
  paths: string[];
  /** The folder stamps to store once those paths are indexed; null when no folder moved. */
  folders: FolderStamp[] | null;
}

/**
 * What changed on disk since the last pass, as far as folders tell; null when the index keeps no
 * folder stamps (built by an earlier indx): then only a full pass can tell.
 */
export function checkFolders(vault: Vault, store: IndexStore): FolderCheck | null {
  const raw = store.getMeta(FOLDERS_KEY);
  if (raw === null) return null;
  const stamps = JSON.parse(raw) as FolderStamp[];
  const abs = (rel: string) => (rel === "" ? vault.root : `${vault.root}/${rel}`);
  const kept: FolderStamp[] = [];
  const moved: string[] = [];
  const gone: string[] = [];
  for (const stamp of stamps) {
    const [rel, stored] = stamp;
    const now = folderMtime(abs(rel));
    if (now === null) gone.push(rel);
    else if (now !== stored || stored < 0) moved.push(rel);
    else kept.push(stamp);
  }
  if (!moved.length && !gone.length) return { paths: [], folders: null };

  const known = new Set(stamps.map(([rel]) => rel));
  const changed = new Set<string>();
  // Everything indexed under a folder that is gone (or is no folder any more) is gone.
  for (const rel of gone) for (const [path] of store.files.stampsIn(rel.normalize("NFC"), true)) changed.add(path);
  const readAgain = (rel: string, isNew: boolean) => {
    const listed = readFolder(vault.root, abs(rel), rel, vault.exclusions);
    if (!listed) {
      // An unreadable folder is out of the vault, as a full pass leaves it out.
      for (const [path] of store.files.stampsIn(rel.normalize("NFC"), true)) changed.add(path);
      return;
    }
    kept.push([rel, listed.mtimeMs]);
    const indexed = new Map<string, FileStamp>();
    for (const stamp of store.files.stampsIn(rel.normalize("NFC"))) indexed.set(stamp[0], stamp);
    for (const [entry, entryAbs, isDir] of listed.entries) {
      if (isDir) {
        // A folder the last pass did not walk (new, or renamed here): all of it is read.
        if (entryAbs !== null && (isNew || !known.has(entry))) readAgain(entry, true);
        continue;
      }
      const path = entry.normalize("NFC");
      const stamp = indexed.get(path);
      indexed.delete(path);
      if (entryAbs === null) {
        if (stamp) changed.add(path);
        continue;
      }
      const now = fileStamp(entryAbs);
      // A file not there any more, or replaced (same name, new size or mtime), or new.
      if (!stamp || !now || now[0] !== stamp[1] || now[1] !== stamp[2]) changed.add(path);
    }
    // Indexed here and not listed: deleted or renamed away.
    for (const path of indexed.keys()) changed.add(path);
  };
  for (const rel of moved) readAgain(rel, false);
  return { paths: [...changed], folders: kept };
}

function folderMtime(abs: string): number | null {
  try {
    const st = statSync(abs);
    return st.isDirectory() ? Math.floor(st.mtimeMs) : null;
  } catch {
    return null;
  }
}

/** A file's size and mtime as the index stamps them, or null when it is not a readable file. */
function fileStamp(abs: string): [size: number, mtimeMs: number] | null {
  try {
    const st = statSync(abs);
    return st.isFile() ? [st.size, Math.floor(st.mtimeMs)] : null;
  } catch {
    return null;
  }
}
