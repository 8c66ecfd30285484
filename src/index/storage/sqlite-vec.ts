import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { debugLog } from "../../core/log.ts";
import { cacheHome } from "../../core/platform-dirs.ts";
import { renameOver } from "../../core/rename-over.ts";

const VERSION = "0.1.9";
/** SQLite derives the init symbol (sqlite3_vec_init) from the file name, so copies keep this stem. */
const STEM = "vec0";
const EMBEDDED = /^vec0(-[a-z0-9]+)?\.(so|dylib|dll)$/;

/** The sqlite-vec package and library file name of a platform (the packages sqlite-vec ships). */
export function vecLibraryFor(platform: NodeJS.Platform, arch: string): { pkg: string; file: string } | null {
  const os = platform === "win32" ? "windows" : platform;
  if (!["linux", "darwin", "windows"].includes(os) || !["x64", "arm64"].includes(arch) || (os === "windows" && arch !== "x64")) return null;
  const ext = os === "windows" ? "dll" : os === "darwin" ? "dylib" : "so";
  return { pkg: `sqlite-vec-${os}-${arch}`, file: `${STEM}.${ext}` };
}

let resolved: string | null | undefined;

/**
 * The path of a loadable vec0 library, or null when there is none (then vector search scans
 * exactly without it: docs/decisions.md, "sqlite-vec on every desktop"). The release build
 * embeds its target's library as a file of the binary (scripts/build.ts); its /$bunfs/ path
 * cannot be dlopen'ed, so the bytes are copied once to the cache folder. From source, the
 * platform's sqlite-vec package in node_modules is used. INDX_SQLITE_VEC_PATH names another
 * library, or `off` for none.
 */
export function vec0Path(): string | null {
  if (resolved !== undefined) return resolved;
  const override = process.env.INDX_SQLITE_VEC_PATH;
  if (override) return (resolved = override === "off" ? null : override);
  const embedded = Bun.embeddedFiles.find((f) => EMBEDDED.test(nameOf(f)));
  resolved = embedded ? extractEmbedded(embedded) : fromNodeModules();
  return resolved;
}

const nameOf = (blob: Blob) => ("name" in blob && typeof blob.name === "string" ? blob.name : "");

function extractEmbedded(blob: Blob): string {
  const ext = nameOf(blob).slice(nameOf(blob).lastIndexOf("."));
  const dir = join(cacheHome(), `sqlite-vec-${VERSION}-${blob.size}`);
  const target = join(dir, `${STEM}${ext}`);
  if (!existsSync(target) || statSync(target).size !== blob.size) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = join(dir, `${STEM}${ext}.${process.pid}.tmp`);
    // copyFileSync cannot read /$bunfs/; readFileSync can.
    // Embedded files sit at the root of the binary's file system, beside the bundled code
    // (/$bunfs/root, B:\~BUN\root on Windows). copyFileSync cannot read there; readFileSync can.
    writeFileSync(tmp, readFileSync(join(import.meta.dir, nameOf(blob))), { mode: 0o600 });
    try {
      renameOver(tmp, target);
    } catch (err) {
      // Another indx process extracted it first and has it loaded (Windows cannot replace a loaded DLL).
      rmSync(tmp, { force: true });
      if (!existsSync(target) || statSync(target).size !== blob.size) throw err;
    }
  }
  return target;
}

function fromNodeModules(): string | null {
  const lib = vecLibraryFor(process.platform, process.arch);
  if (!lib) return null;
  try {
    return Bun.resolveSync(`${lib.pkg}/${lib.file}`, import.meta.dir);
  } catch {
    return null;
  }
}

/**
 * Loads sqlite-vec into a connection; false when it cannot be loaded: macOS's system SQLite,
 * which bun:sqlite uses there, refuses extensions, and a library may be missing or broken.
 */
export function loadVec(db: Database): boolean {
  const path = vec0Path();
  if (!path) return false;
  try {
    db.loadExtension(path);
    return true;
  } catch (err) {
    debugLog("sqlite-vec failed to load", { error: err });
    return false;
  }
}

/** Whether sqlite-vec loads in this process (indx doctor). */
export function vecLoads(): boolean {
  const db = new Database(":memory:");
  try {
    return loadVec(db);
  } finally {
    db.close();
  }
}
