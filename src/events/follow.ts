import { closeSync, openSync, readSync, statSync } from "node:fs";
import type { VaultEvent } from "./types.ts";

const POLL_MS = 200;
const MAX_READ = 1024 * 1024;

/**
 * Follows events.log from its current end, handing each new event to `onEvent`: how a
 * long-lived process (serve, MCP) hears about writes another indx process made (a CLI
 * `note update` next to a running server). Survives rotation (the file shrinking) and a
 * half-written last line. Polling keeps it portable; 200 ms is below the watcher's debounce.
 */
export function followLog(file: string, onEvent: (event: VaultEvent) => void): () => void {
  let offset = sizeOf(file);
  let partial = "";
  const timer = setInterval(() => {
    const size = sizeOf(file);
    if (size < offset) {
      offset = 0; // rotated: the new file holds only what came after
      partial = "";
    }
    if (size === offset) return;
    const length = Math.min(size - offset, MAX_READ);
    const buf = Buffer.alloc(length);
    let fd: number;
    try {
      fd = openSync(file, "r");
    } catch {
      return;
    }
    try {
      readSync(fd, buf, 0, length, offset);
    } finally {
      closeSync(fd);
    }
    offset += length;
    const text = partial + buf.toString("utf8");
    const lines = text.split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.trim()) continue;
      try {
        onEvent(JSON.parse(line) as VaultEvent);
      } catch {}
    }
  }, POLL_MS);
  timer.unref?.();
  return () => clearInterval(timer);
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
