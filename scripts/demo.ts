#!/usr/bin/env bun
/**
 * `bun run demo`: serves a working copy of fixtures/demo-vault (in .demo/demo-vault, made on first run)
 * with the compiled binary. Edits made while trying indx — note_write, note_move, the trash —
 * land in the copy, so the fixture the tests read stays as committed. `--reset` starts over.
 */
import { cpSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const copy = join(root, ".demo", "demo-vault");
if (process.argv.includes("--reset")) rmSync(join(root, ".demo"), { recursive: true, force: true });
if (!existsSync(copy)) {
  cpSync(join(root, "fixtures", "demo-vault"), copy, { recursive: true });
  console.error("Copied fixtures/demo-vault to .demo/demo-vault (your edits go there; `bun run demo --reset` restores it).");
}
const args = process.argv.slice(2).filter((a) => a !== "--reset");
const server = Bun.spawn([join(root, "dist", "indx"), "serve", "--vault", copy, ...args], { stdio: ["inherit", "inherit", "inherit"] });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.kill(signal));
process.exit(await server.exited);
