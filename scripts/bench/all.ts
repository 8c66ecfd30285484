#!/usr/bin/env bun
/** Runs every benchmark in turn; each prints JSON lines. */
import { join } from "node:path";

for (const name of ["catalogue.ts", "index.ts", "search.ts", "mcp.ts", "writes.ts", "bases.ts", "anchors.ts", "scifact.ts", "vectors.ts"]) {
  const p = Bun.spawnSync(["bun", join(import.meta.dir, name)], { stdout: "inherit", stderr: "inherit" });
  if (p.exitCode !== 0) process.exit(p.exitCode ?? 1);
}
