import { type Dirent, readdirSync, realpathSync } from "node:fs";
import { basename, sep } from "node:path";
import { IndxError } from "../core/errors.ts";
import { globToRegExp } from "./glob.ts";
import { type FileStats, StatPool } from "./stat-files.ts";
import { NOT_A_FILE, UNREADABLE } from "./stat-protocol.ts";

export type FileKind = "note" | "canvas" | "base" | "attachment";

export interface ScannedFile {
  path: string; // vault-relative POSIX
  kind: FileKind;
  size: number;
  mtimeMs: number;
}

/** Folders that are never vault content, besides every hidden (dot) folder. */
const EXCLUDED_DIRS = new Set(["node_modules", "__pycache__", "build", "dist", "out", "target", "coverage", "tmp", "cache"]);

export function fileKind(path: string): FileKind {
  const lower = path.toLowerCase();
  if (lower.endsWith(".md") || lower.endsWith(".markdown")) return "note";
  if (lower.endsWith(".canvas")) return "canvas";
  if (lower.endsWith(".base")) return "base";
  return "attachment";
}

export class Exclusions {
  private readonly globs: RegExp[];
  constructor(userGlobs: readonly string[]) {
    this.globs = userGlobs.map((g) => globToRegExp(g));
  }
  /** True when a vault-relative path (file or folder) is out of the vault's content. */
  excludes(rel: string, isDir = false): boolean {
    const parts = rel.split("/");
    if (parts.some((p) => p.startsWith("."))) return true;
    if (parts.slice(0, isDir ? parts.length : -1).some((p) => EXCLUDED_DIRS.has(p))) return true;
    return this.globs.some((re) => re.test(rel) || (isDir && re.test(`${rel}/`)));
  }

  /** excludes() for a file not hidden, in a folder not excluded: only the globs can leave it out. */
  globExcludes(rel: string): boolean {
    return this.globs.length > 0 && this.globs.some((re) => re.test(rel));
  }
}

export interface ScanResult {
  files: ScannedFile[];
  /** Paths skipped for safety (symlinks leaving the vault, unreadable entries). Vault-relative. */
  skipped: { path: string; reason: string }[];
}

export interface ScanOptions {
  /** Work for this thread while the stat worker takes its first files (stat-files.ts). */
  whileStatting?: () => void;
}

/**
 * Walks the vault. Symlinked folders are not followed (loops, escapes); a symlinked file is kept
 * only when its target stays inside the vault. The folders are read first, then every file is
 * statted in one go.
 */
export function scanVault(rootReal: string, exclusions: Exclusions, opts: ScanOptions = {}): ScanResult {
  const rels: string[] = [];
  const abss: string[] = [];
  const pool = new StatPool();
  const skipped: { path: string; reason: string }[] = [];
  const walk = (absDir: string, relDir: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(absDir, { withFileTypes: true });
    } catch {
      // A root that cannot be listed holds no news: an index pass must not prune every note (docs/decisions.md, "A vault folder that goes away").
      if (relDir === "") throw vaultMissingError(rootReal);
      skipped.push({ path: relDir || ".", reason: "unreadable" });
      return;
    }
    for (const e of entries) {
      const name = e.name;
      const rel = relDir ? `${relDir}/${name}` : name;
      if (name.startsWith(".")) continue;
      // A name from readdir is never `.`, `..` or empty: no join() needed.
      const abs = `${absDir}/${name}`;
      if (e.isDirectory()) {
        if (EXCLUDED_DIRS.has(name) || exclusions.excludes(rel, true)) continue;
        walk(abs, rel);
      } else if (e.isFile() || e.isSymbolicLink()) {
        if (exclusions.globExcludes(rel)) continue;
        if (e.isSymbolicLink() && !insideVault(rootReal, abs)) {
          skipped.push({ path: rel, reason: "symlink_escape" });
          continue;
        }
        rels.push(rel);
        abss.push(abs);
        pool.found(abss);
      }
    }
  };
  let stats: FileStats;
  try {
    walk(rootReal, "");
    stats = pool.stat(abss, opts.whileStatting);
  } finally {
    pool.close();
  }
  const files: ScannedFile[] = [];
  rels.forEach((rel, i) => {
    const size = stats.size(i);
    if (size === UNREADABLE) skipped.push({ path: rel, reason: "unreadable" });
    else if (size !== NOT_A_FILE) files.push({ path: rel.normalize("NFC"), kind: fileKind(rel), size, mtimeMs: stats.mtimeMs(i) });
  });
  return { files, skipped };
}

/** A symlink's target is inside the vault; an unreadable one counts as inside (its stat fails). */
function insideVault(rootReal: string, abs: string): boolean {
  try {
    return realpathSync(abs).startsWith(rootReal + sep);
  } catch {
    return true;
  }
}

/** The vault folder is not there (or not a folder): typed, by its name only (docs/contracts.md, vault_missing). */
export function vaultMissingError(root: string): IndxError {
  const name = basename(root);
  return new IndxError("vault_missing", `The vault folder (${name}) is gone: deleted, renamed or unmounted. indx answers again once it is back.`, {
    vault: name,
  });
}
