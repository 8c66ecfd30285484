import { appendFileSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { renameOver } from "../core/rename-over.ts";
import type { VaultEvent } from "./types.ts";

const MAX_BYTES = 5 * 1024 * 1024;
const KEEP = 3;

/**
 * events.log in the data directory: one JSON object per line, appended by every indx process
 * (single small appends are atomic with O_APPEND), rotated to events.log.1…3 past 5 MB.
 */
export class EventLog {
  readonly file: string;
  private bytesSinceCheck = 0;

  constructor(dataDir: string) {
    this.file = join(dataDir, "events.log");
  }

  append(event: VaultEvent): void {
    const line = `${JSON.stringify(event)}\n`;
    try {
      appendFileSync(this.file, line, { mode: 0o600 });
      this.bytesSinceCheck += line.length;
      if (this.bytesSinceCheck > 64 * 1024) this.rotateIfLarge();
    } catch {
      // The log is a record, not the source of truth: a full disk must not fail the write.
    }
  }

  private rotateIfLarge(): void {
    this.bytesSinceCheck = 0;
    let size = 0;
    try {
      size = statSync(this.file).size;
    } catch {
      return;
    }
    if (size < MAX_BYTES) return;
    try {
      unlinkSync(`${this.file}.${KEEP}`);
    } catch {}
    for (let i = KEEP - 1; i >= 1; i--) {
      try {
        renameOver(`${this.file}.${i}`, `${this.file}.${i + 1}`);
      } catch {}
    }
    try {
      renameOver(this.file, `${this.file}.1`);
    } catch {}
  }
}
