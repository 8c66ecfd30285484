import { accessSync, constants, realpathSync } from "node:fs";
import { basename, delimiter, isAbsolute, join, resolve } from "node:path";
import { expandHome } from "../core/platform-dirs.ts";

const real = (p: string): string | null => {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
};

/**
 * The current folder as the shell shows it: $PWD when it names the same folder as the process's
 * own (symlinks kept, as `pwd` prints it), else the resolved one. `~/Notes` linked to a synced
 * folder stays `~/Notes` in what indx stores and prints.
 */
export function logicalCwd(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): string {
  const pwd = env.PWD;
  if (pwd && isAbsolute(pwd) && real(pwd) === real(cwd)) return pwd;
  return cwd;
}

/** A folder the user typed, made absolute against the shell's current folder, its symlinks as typed. */
export function absoluteAsTyped(typed: string, env: Record<string, string | undefined> = process.env): string {
  return resolve(logicalCwd(env), expandHome(typed));
}

/**
 * The path on PATH that starts this executable: the first PATH entry whose file is the same binary
 * (a package manager's link, `/opt/homebrew/bin/indx`), not the versioned file it resolves to,
 * which the next upgrade removes. The executable's own path when PATH does not reach it.
 */
export function commandOnPath(execPath: string, env: Record<string, string | undefined> = process.env): string {
  const target = real(execPath);
  const names = process.platform === "win32" ? [basename(execPath)] : [basename(execPath), "indx"];
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    for (const name of new Set(names)) {
      const candidate = join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
      } catch {
        continue;
      }
      if (target !== null && real(candidate) === target) return candidate;
    }
  }
  return execPath;
}
