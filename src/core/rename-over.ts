import { renameSync } from "node:fs";
import { errnoOf } from "./errno.ts";

/** Errors Windows gives while another process (an editor, a virus scanner, a sync client) has the target open. */
const TRANSIENT_ON_WINDOWS = new Set(["EPERM", "EACCES", "EBUSY"]);
const RETRY_FOR_MS = 2000;

export interface RenameDeps {
  platform: NodeJS.Platform;
  rename(from: string, to: string): void;
  sleep(ms: number): void;
}

const realDeps: RenameDeps = { platform: process.platform, rename: renameSync, sleep: (ms) => Bun.sleepSync(ms) };

/**
 * Renames `from` over `to`. On POSIX that is atomic even while readers hold `to` open. Windows
 * refuses to replace a file another process has open without delete sharing, so there the rename
 * is retried for up to two seconds with a growing pause (as graceful-fs does) before its error
 * is passed on; the temp file stays whole meanwhile, so a reader still sees the old or the new bytes.
 */
export function renameOver(from: string, to: string, deps: RenameDeps = realDeps): void {
  let waited = 0;
  for (let pause = 10; ; pause = Math.min(pause * 2, 250)) {
    try {
      deps.rename(from, to);
      return;
    } catch (err) {
      const code = errnoOf(err) ?? "";
      if (deps.platform !== "win32" || !TRANSIENT_ON_WINDOWS.has(code) || waited >= RETRY_FOR_MS) throw err;
      deps.sleep(pause);
      waited += pause;
    }
  }
}
