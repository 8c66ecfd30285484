import { existsSync } from "node:fs";
import { resolve } from "node:path";

/**
 * The binary the end-to-end tests run: dist/indx from `bun run build`, or another build named by
 * INDX_E2E_BIN (the release smoke runs the suite on the binary from a release archive).
 */
export const BIN = process.env.INDX_E2E_BIN ? resolve(process.env.INDX_E2E_BIN) : resolve(import.meta.dir, "..", "..", "dist", "indx");

/** `indx serve` from the compiled binary, running, and the URL it said it listens on. */
export interface ServedBinary {
  serve: Bun.Subprocess<"ignore", "pipe", "pipe">;
  base: string;
}

/**
 * Starts BIN's `serve --port 0 --no-watch` with `env` and waits (30 s at most) for the line that
 * names its address on stderr; throws with what it said when it never does.
 */
export async function serveBinary(env: Record<string, string>): Promise<ServedBinary> {
  if (!existsSync(BIN)) throw new Error("dist/indx is missing: run `bun run build` first");
  const serve = Bun.spawn([BIN, "serve", "--port", "0", "--no-watch"], { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const reader = serve.stderr.getReader();
  let seen = "";
  let base = "";
  const deadline = Date.now() + 30_000;
  while (!base && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += new TextDecoder().decode(value);
    base = /(https?:\/\/127\.0\.0\.1:\d+)/.exec(seen)?.[1] ?? "";
  }
  reader.releaseLock();
  if (!base) throw new Error(`serve did not start: ${seen}`);
  return { serve, base };
}
