import { existsSync, renameSync } from "node:fs";
import { basename } from "node:path";

/**
 * Moves a damaged index file aside, with its WAL and shared-memory files, so a build can start a
 * new one (docs/decisions.md, "A damaged index"). The index is derived, but the damaged file is
 * kept rather than deleted: it is what a bug report needs, and a rebuild must never lose the only
 * copy of something a user put there by mistake. Returns the new file name (no folder), or null
 * when there was nothing to move.
 */
export function setAsideDamaged(path: string, now = new Date()): string | null {
  if (!existsSync(path)) return null;
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  let target = `${path}.corrupt-${stamp}`;
  for (let n = 2; existsSync(target); n++) target = `${path}.corrupt-${stamp}-${n}`;
  // The WAL and -shm go first: an index.db without its WAL is never opened with another file's.
  for (const suffix of ["-wal", "-shm"]) if (existsSync(path + suffix)) renameSync(path + suffix, target + suffix);
  renameSync(path, target);
  return basename(target);
}
