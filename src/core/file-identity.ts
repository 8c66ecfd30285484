import { statSync } from "node:fs";

/**
 * Which file a path names right now (device and inode), or null when there is none. An SQLite
 * connection keeps reading and writing its file after the path is deleted or replaced, so
 * long-running processes compare this to the identity they opened.
 */
export function fileIdentity(path: string): string | null {
  const st = statSync(path, { throwIfNoEntry: false });
  return st ? `${st.dev}:${st.ino}` : null;
}
