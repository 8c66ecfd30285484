/**
 * A reader worker that dies the way a crashed thread does (the worker ends mid-request), for the
 * pool's crash tests. It is the real reader worker, except that note_read of "Crash.md" always
 * ends it, and note_read of "Once.md" ends the first worker that gets it (a marker file in the
 * data folder remembers that one did). Everything else it answers as the real one.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import "../../src/app/reader-worker.ts";
import type { ToReader } from "../../src/app/reader-protocol.ts";

declare const self: Worker;

const answerAsReal = self.onmessage!;
let dataDir = "";

self.onmessage = (event: MessageEvent<ToReader>) => {
  const message = event.data;
  if (message.type === "init") dataDir = message.vault.dataDir;
  if (message.type === "run" && message.op === "note_read") {
    const path = (message.input as { path?: unknown }).path;
    if (path === "Crash.md") process.exit(1);
    const marker = join(dataDir, "crashed-once");
    if (path === "Once.md" && !existsSync(marker)) {
      writeFileSync(marker, "");
      process.exit(1);
    }
  }
  answerAsReal.call(self, event);
};
