import { homedir } from "node:os";
import { posix, win32 } from "node:path";

/** What decides where indx keeps its files: the OS, the environment and the home folder. */
export interface PlatformEnv {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  home: string;
}

export function currentPlatform(env: Record<string, string | undefined> = process.env): PlatformEnv {
  return { platform: process.platform, env, home: env.HOME || env.USERPROFILE || homedir() };
}

const pathsOf = (p: PlatformEnv) => (p.platform === "win32" ? win32 : posix);

/**
 * The folders of indx's own files (docs/decisions.md, "Where indx keeps its files"). The XDG
 * variables win everywhere, so one setting moves them on every OS (tests rely on it). Otherwise
 * Windows uses %APPDATA% for the configuration (it roams with the user) and %LOCALAPPDATA% for
 * the index and caches (they are rebuilt, never roamed); Linux and macOS use the XDG defaults,
 * as gh and ripgrep do on macOS too.
 */
export function configHome(p: PlatformEnv = currentPlatform()): string {
  const path = pathsOf(p);
  if (p.env.XDG_CONFIG_HOME) return path.join(p.env.XDG_CONFIG_HOME, "indx");
  if (p.platform === "win32") return path.join(p.env.APPDATA || path.join(p.home, "AppData", "Roaming"), "indx");
  return path.join(p.home, ".config", "indx");
}

export function dataHome(p: PlatformEnv = currentPlatform()): string {
  const path = pathsOf(p);
  if (p.env.XDG_DATA_HOME) return path.join(p.env.XDG_DATA_HOME, "indx");
  if (p.platform === "win32") return path.join(localAppData(p), "indx");
  return path.join(p.home, ".local", "share", "indx");
}

export function cacheHome(p: PlatformEnv = currentPlatform()): string {
  const path = pathsOf(p);
  if (p.env.XDG_CACHE_HOME) return path.join(p.env.XDG_CACHE_HOME, "indx");
  if (p.platform === "win32") return path.join(localAppData(p), "indx", "cache");
  return path.join(p.home, ".cache", "indx");
}

function localAppData(p: PlatformEnv): string {
  return p.env.LOCALAPPDATA || win32.join(p.home, "AppData", "Local");
}

/** `~/Notes` (and `~\Notes` on Windows) under the home folder; anything else as given. */
export function expandHome(input: string, p: PlatformEnv = currentPlatform()): string {
  if (input === "~") return p.home;
  const sepAfterTilde = p.platform === "win32" ? /^~[\\/]/ : /^~\//;
  return sepAfterTilde.test(input) ? pathsOf(p).join(p.home, input.slice(2)) : input;
}
