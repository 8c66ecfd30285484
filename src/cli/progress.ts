import type { ProgressFn } from "../core/progress.ts";

/** A progress bar on stderr, drawn only on a terminal and at most every 50 ms. */
export function progressBar(label: string): { update: ProgressFn; done(): void } {
  const tty = process.stderr.isTTY === true;
  let last = 0;
  let drawn = false;
  return {
    update(done, total) {
      if (!tty || total === 0) return;
      const now = Date.now();
      if (now - last < 50 && done < total) return;
      last = now;
      const width = 30;
      const filled = Math.round((done / total) * width);
      process.stderr.write(`\r${label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}`);
      drawn = true;
    },
    done() {
      if (drawn) process.stderr.write("\r\x1b[2K");
    },
  };
}
