import { type Dirent, readdirSync, realpathSync, statSync } from "node:fs";
import { join, sep } from "node:path";
import { globToRegExp } from "./glob.ts";

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
}

export interface ScanResult {
  files: ScannedFile[];
  /** Paths skipped for safety (symlinks leaving the vault, unreadable entries). Vault-relative. */
  skipped: { path: string; reason: string }[];
}

/**
 * Walks the vault. Symlinked folders are not followed (loops, escapes); a symlinked file is kept
 * only when its target stays inside the vault.
 */
export function scanVault(rootReal: string, exclusions: Exclusions): ScanResult {
  const files: ScannedFile[] = [];
  const skipped: { path: string; reason: string }[] = [];
  const walk = (absDir: string, relDir: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(absDir, { withFileTypes: true });
    } catch {
      skipped.push({ path: relDir || ".", reason: "unreadable" });
      return;
    }
    for (const e of entries) {
      const name = e.name;
      const rel = relDir ? `${relDir}/${name}` : name;
      if (name.startsWith(".")) continue;
      const abs = join(absDir, name);
      if (e.isDirectory()) {
        if (EXCLUDED_DIRS.has(name) || exclusions.excludes(rel, true)) continue;
        walk(abs, rel);
      } else if (e.isFile() || e.isSymbolicLink()) {
        if (exclusions.excludes(rel)) continue;
        try {
          if (e.isSymbolicLink()) {
            const real = realpathSync(abs);
            if (!real.startsWith(rootReal + sep)) {
              skipped.push({ path: rel, reason: "symlink_escape" });
              continue;
            }
          }
          const st = statSync(abs);
          if (!st.isFile()) continue;
          files.push({ path: rel.normalize("NFC"), kind: fileKind(name), size: st.size, mtimeMs: Math.floor(st.mtimeMs) });
        } catch {
          skipped.push({ path: rel, reason: "unreadable" });
        }
      }
    }
  };
  walk(rootReal, "");
  return { files, skipped };
}
