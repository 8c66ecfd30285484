/**
 * Command output. Bun flushes stdout before exit, so piped output is never cut. When the reader
 * goes away (`indx note list | head`), writing fails with EPIPE: the command stops quietly with
 * status 0, as ripgrep does, instead of printing a stack trace (docs/decisions.md, "CLI output").
 */
import { errnoOf } from "../core/errno.ts";

const brokenPipe = (err: unknown) => errnoOf(err) === "EPIPE";

process.stdout.on("error", (err) => {
  if (brokenPipe(err)) process.exit(0);
  throw err;
});

export function print(text: string): void {
  if (text === "") return;
  try {
    process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  } catch (err) {
    if (brokenPipe(err)) process.exit(0);
    throw err;
  }
}

export function printErr(text: string): void {
  process.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
}
