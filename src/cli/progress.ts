import type { ProgressFn } from "../core/progress.ts";

/** One line of a progress bar: the step, the bar, percent, counts, rate and time left. */
export function progressLine(step: string, done: number, total: number, elapsedMs: number, width: number): string {
  const fraction = total > 0 ? Math.min(1, done / total) : 0;
  const rate = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  const eta = rate > 0 && done < total ? `, ${duration((total - done) / rate)} left` : "";
  const tail = ` ${String(Math.floor(fraction * 100)).padStart(3)}% ${done}/${total} (${rate >= 10 ? Math.round(rate) : rate.toFixed(1)}/s${eta})`;
  const barWidth = Math.max(10, Math.min(30, width - step.length - tail.length - 4));
  const filled = Math.round(fraction * barWidth);
  return `${step} [${"#".repeat(filled)}${"-".repeat(barWidth - filled)}]${tail}`.slice(0, Math.max(0, width - 1));
}

function duration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  const m = Math.floor(seconds / 60);
  return m < 60 ? `${m} min ${Math.round(seconds - m * 60)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/**
 * A progress bar on stderr, drawn only on a terminal and at most every 50 ms: the step it is in,
 * percent, counts, rate and time left. done() erases it, so the summary line stands alone.
 */
export function progressBar(step: string): { update: ProgressFn; done(): void } {
  const tty = process.stderr.isTTY === true;
  const started = Date.now();
  let last = 0;
  let drawn = false;
  return {
    update(done, total) {
      if (!tty || total === 0) return;
      const now = Date.now();
      if (now - last < 50 && done < total) return;
      last = now;
      process.stderr.write(`\r\x1b[2K${progressLine(step, done, total, now - started, process.stderr.columns || 80)}`);
      drawn = true;
    },
    done() {
      if (drawn) process.stderr.write("\r\x1b[2K");
      drawn = false;
    },
  };
}
