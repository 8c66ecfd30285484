import { chmodSync, unlinkSync, writeFileSync } from "node:fs";
import { renameOver } from "./rename-over.ts";

/**
 * Replaces a small whole file (tokens.json, oauth.json, the config file, a service unit) through
 * `<file>.<pid>.tmp` and a rename, so a reader sees the old bytes or the new ones. The temp file
 * is removed when any step fails — a full disk, a read-only folder, a rename refused — so failed
 * writes leave nothing beside the file; the error is the caller's.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode: number): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, data, { mode });
    // writeFileSync's mode is filtered by the umask and ignored for a file that already existed.
    chmodSync(tmp, mode);
    renameOver(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {}
    throw err;
  }
}
