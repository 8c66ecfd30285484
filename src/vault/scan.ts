import { type Dirent, readdirSync, realpathSync, statSync } from "node:fs";
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
  constructor(
    userGlobs: readonly string[],
    /** Obsidian's "Excluded files" when index.obsidian_excluded is on (src/vault/obsidian-app.ts ignoredBy), else null. */
    private readonly obsidianIgnored: ((path: string) => boolean) | null = null,
  ) {
    this.globs = userGlobs.map((g) => globToRegExp(g));
  }
  /** True when a vault-relative path (file or folder) is out of the vault's content. */
  excludes(rel: string, isDir = false): boolean {
    const parts = rel.split("/");
    if (parts.some((p) => p.startsWith("."))) return true;
    if (parts.slice(0, isDir ? parts.length : -1).some((p) => EXCLUDED_DIRS.has(p))) return true;
    return this.globs.some((re) => re.test(rel) || (isDir && re.test(`${rel}/`))) || this.ignoredByObsidian(rel, isDir);
  }

  /** excludes() for a file not hidden, in a folder not excluded: only the globs can leave it out. */
  globExcludes(rel: string): boolean {
    return (this.globs.length > 0 && this.globs.some((re) => re.test(rel))) || this.ignoredByObsidian(rel, false);
  }

  /** A folder is excluded by a prefix written with its slash ("Templates/") too. */
  private ignoredByObsidian(rel: string, isDir: boolean): boolean {
    return this.obsidianIgnored !== null && (this.obsidianIgnored(rel) || (isDir && this.obsidianIgnored(`${rel}/`)));
  }
}

/**
 * A folder's path as on disk (vault-relative, "" for the root) and its mtime, taken just before
 * it was read: adding, removing or renaming an entry moves it (src/index/build/folder-check.ts).
 */
export type FolderStamp = [path: string, mtimeMs: number];

export interface ScanResult {
  files: ScannedFile[];
  /** Every folder walked, in walk order. */
  folders: FolderStamp[];
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
 * statted in one go; each folder's mtime is kept (`folders`) for the CLI's quick check.
 */
export function scanVault(rootReal: string, exclusions: Exclusions, opts: ScanOptions = {}): ScanResult {
  const rels: string[] = [];
  const abss: string[] = [];
  const pool = new StatPool();
  const skipped: { path: string; reason: string }[] = [];
  const folders: FolderStamp[] = [];
  const walk = (absDir: string, relDir: string) => {
    const listed = readFolder(rootReal, absDir, relDir, exclusions);
    if (!listed) {
      // A root that cannot be listed holds no news: an index pass must not prune every note (docs/decisions.md, "A vault folder that goes away").
      if (relDir === "") throw vaultMissingError(rootReal);
      skipped.push({ path: relDir || ".", reason: "unreadable" });
      return;
    }
    folders.push([relDir, listed.mtimeMs]);
    for (const [rel, abs, isDir] of listed.entries) {
      if (abs === null) skipped.push({ path: rel, reason: "symlink_escape" });
      else if (isDir) walk(abs, rel);
      else {
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
  return { files, folders, skipped };
}

/**
 * One folder's content entries: [vault-relative path, absolute path, is a folder], in the order
 * read, with the folder's mtime taken before reading it (an entry added meanwhile then moves it
 * again, and is never missed). Hidden and excluded entries are left out; a symlinked file whose
 * target leaves the vault comes with a null absolute path. Null when the folder cannot be read.
 */
export function readFolder(
  rootReal: string,
  absDir: string,
  relDir: string,
  exclusions: Exclusions,
): { mtimeMs: number; entries: [rel: string, abs: string | null, isDir: boolean][] } | null {
  let entries: Dirent[];
  let mtimeMs: number;
  try {
    mtimeMs = Math.floor(statSync(absDir).mtimeMs);
    entries = readdirSync(absDir, { withFileTypes: true });
  } catch {
    return null;
  }
  const out: [string, string | null, boolean][] = [];
  for (const e of entries) {
    const name = e.name;
    if (name.startsWith(".")) continue;
    const rel = relDir ? `${relDir}/${name}` : name;
    // A name from readdir is never `.`, `..` or empty: no join() needed.
    const abs = `${absDir}/${name}`;
    if (e.isDirectory()) {
      if (EXCLUDED_DIRS.has(name) || exclusions.excludes(rel, true)) continue;
      out.push([rel, abs, true]);
    } else if (e.isFile() || e.isSymbolicLink()) {
      if (exclusions.globExcludes(rel)) continue;
      out.push([rel, e.isSymbolicLink() && !insideVault(rootReal, abs) ? null : abs, false]);
    }
  }
  return { mtimeMs, entries: out };
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
