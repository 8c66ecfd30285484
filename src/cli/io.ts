import { writeSync } from "node:fs";
import { isatty } from "node:tty";

/**
 * Command output. It is written straight to file descriptor 1: making `process.stdout` costs a
 * command about 11 ms of start-up (Bun builds a Node stream for it), a sixth of `indx search`
 * (docs/decisions.md, "A CLI read that is current and fast"). Only when the descriptor would
 * block (a non-blocking pipe that is full) does the rest go through `process.stdout`, which
 * Bun flushes before exit, and every later line after it, in order. When the reader goes away
 * (`indx note list | head`), writing fails with EPIPE: the command stops quietly with status
 * 0, as ripgrep does, instead of printing a stack trace (docs/decisions.md, "CLI output").
 */
const brokenPipe = (err: unknown) => (err as { code?: string } | null)?.code === "EPIPE";

let viaStream = false;

/** Whether stdout is a terminal, asked of the descriptor (see above for why not `process.stdout.isTTY`). */
export function stdoutIsTTY(): boolean {
  return isatty(1);
}

export function print(text: string): void {
  if (text === "") return;
  write(text.endsWith("\n") ? text : `${text}\n`);
}

/** Writes text to stdout as it is (no newline added). */
export function write(text: string): void {
  const bytes = Buffer.from(text);
  let at = 0;
  try {
    while (!viaStream && at < bytes.length) at += writeSync(1, bytes, at);
  } catch (err) {
    if (brokenPipe(err)) process.exit(0);
    if ((err as { code?: string }).code !== "EAGAIN") throw err;
    viaStream = true;
  }
  if (at < bytes.length) writeStream(bytes.subarray(at));
}

function writeStream(bytes: Uint8Array): void {
  if (process.stdout.listenerCount("error") === 0)
    process.stdout.on("error", (err) => {
      if (brokenPipe(err)) process.exit(0);
      throw err;
    });
  try {
    process.stdout.write(bytes);
  } catch (err) {
    if (brokenPipe(err)) process.exit(0);
    throw err;
  }
}

export function printErr(text: string): void {
  process.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
}
