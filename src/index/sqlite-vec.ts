import type { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
// Embedded into the compiled binary as a file; under `bun run` this is the path in node_modules.
import embeddedVec0 from "sqlite-vec-linux-x64/vec0.so" with { type: "file" };
import { IndxError } from "../core/errors.ts";

const VERSION = "0.1.9";
let resolved: string | null = null;

/**
 * The path of a loadable vec0 library. Inside `bun build --compile` the embedded file lives at a
 * /$bunfs/ path that dlopen cannot read, so its bytes are copied once to a cache directory; the
 * copy keeps the name vec0.so because SQLite derives the init symbol from the file name
 * (docs/stack.md, sqlite-vec). INDX_SQLITE_VEC_PATH overrides it (other platforms, packagers).
 */
export function vec0Path(): string {
  if (resolved) return resolved;
  const override = process.env.INDX_SQLITE_VEC_PATH;
  if (override) return (resolved = override);
  if (process.platform !== "linux" || process.arch !== "x64")
    throw new IndxError(
      "ai_unavailable",
      `Vector search needs the sqlite-vec extension, which this build carries for linux-x64 only: set INDX_SQLITE_VEC_PATH to a vec0 library for ${process.platform}-${process.arch}.`,
    );
  if (!embeddedVec0.startsWith("/$bunfs/") && !embeddedVec0.includes("~BUN") && existsSync(embeddedVec0)) return (resolved = embeddedVec0);
  const size = Bun.file(embeddedVec0).size;
  const base = process.env.XDG_CACHE_HOME || join(process.env.HOME || homedir() || tmpdir(), ".cache");
  const dir = join(base, "indx", `sqlite-vec-${VERSION}-${size}`);
  const target = join(dir, "vec0.so");
  if (!existsSync(target) || statSync(target).size !== size) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = join(dir, `vec0.so.${process.pid}.tmp`);
    // copyFileSync cannot read /$bunfs/; readFileSync can.
    writeFileSync(tmp, readFileSync(embeddedVec0), { mode: 0o600 });
    renameSync(tmp, target);
  }
  return (resolved = target);
}

/** Loads sqlite-vec into a connection (bun:sqlite on Linux allows extensions). */
export function loadVec(db: Database): void {
  db.loadExtension(vec0Path());
}
