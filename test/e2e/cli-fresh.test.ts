import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN } from "../support/binary.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * CLI reads are current (docs/decisions.md, "A CLI read that is current and fast"): notes added,
 * deleted or renamed between two calls of the compiled binary are seen by the second, with no
 * server and with `indx serve` watching the same vault. Build first: `bun run build`.
 */

let sb: Sandbox;

function search(q: string): string[] {
  const p = Bun.spawnSync([BIN, "search", q, "--mode", "lexical", "--json"], { env: sb.env, stdout: "pipe", stderr: "pipe" });
  expect(p.stderr.toString()).toBe("");
  expect(p.exitCode).toBe(0);
  return (JSON.parse(p.stdout.toString()).results as { path: string }[]).map((r) => r.path).sort();
}

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/indx is missing: run `bun run build` first");
  sb = sandbox({}, { fromDemo: true });
  expect(Bun.spawnSync([BIN, "vault", "index"], { env: sb.env }).exitCode).toBe(0);
});
afterAll(() => sb?.cleanup());

/** Adds, deletes, renames and edits notes between calls, checking each answer. */
function changeBetweenCalls(word: string): void {
  expect(search(word)).toEqual([]);
  sb.write(`Inbox/${word} one.md`, `# One\n\n${word} first\n`);
  expect(search(word)).toEqual([`Inbox/${word} one.md`]);
  sb.write(`${word}/deep/Two.md`, `# Two\n\n${word} second\n`);
  expect(search(word)).toEqual([`Inbox/${word} one.md`, `${word}/deep/Two.md`]);
  rmSync(join(sb.vault, `Inbox/${word} one.md`));
  expect(search(word)).toEqual([`${word}/deep/Two.md`]);
  renameSync(join(sb.vault, `${word}/deep`), join(sb.vault, `${word}/moved`));
  expect(search(word)).toEqual([`${word}/moved/Two.md`]);
  // Edited in place: no folder moves, the answer's own check sees it.
  writeFileSync(join(sb.vault, `${word}/moved/Two.md`), "# Two\n\nnothing to find any more\n");
  expect(search(word)).toEqual([]);
  rmSync(join(sb.vault, word), { recursive: true });
  mkdirSync(join(sb.vault, word));
  sb.write(`${word}/Three.md`, `# Three\n\n${word} third\n`);
  expect(search(word)).toEqual([`${word}/Three.md`]);
  rmSync(join(sb.vault, word), { recursive: true });
  expect(search(word)).toEqual([]);
}

describe("CLI reads between changes on disk", () => {
  test("without a server", () => {
    changeBetweenCalls("bilbyword");
  });

  test("with `indx serve` watching the vault", async () => {
    const server = Bun.spawn([BIN, "serve", "--port", "0"], { env: sb.env, stdout: "ignore", stderr: "pipe" });
    try {
      const reader = server.stderr.getReader();
      let seen = "";
      const deadline = Date.now() + 15_000;
      while (!/127\.0\.0\.1:\d+/.test(seen) && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += new TextDecoder().decode(value);
      }
      reader.releaseLock();
      expect(seen).toMatch(/127\.0\.0\.1:\d+/);
      changeBetweenCalls("potorooword");
    } finally {
      server.kill();
      await server.exited;
    }
  });
});
