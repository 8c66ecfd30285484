/** Writes command output to stdout. Bun flushes stdout before exit, so piped output is never cut. */
export function print(text: string): void {
  if (text === "") return;
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}

export function printErr(text: string): void {
  process.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
}
