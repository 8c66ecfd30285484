import { describe, expect, test } from "bun:test";
import { cacheHome, configHome, dataHome, expandHome, type PlatformEnv } from "../../../src/core/platform-dirs.ts";
import { renameOver } from "../../../src/core/rename-over.ts";
import { watchedPath } from "../../../src/index/build/watcher.ts";
import { vecLibraryFor } from "../../../src/index/storage/sqlite-vec.ts";
import { normalizeVaultPath, windowsNameProblem } from "../../../src/vault/paths.ts";

/**
 * The platform-specific code of the macOS and Windows builds, which cannot run here: each
 * function takes the platform, so its Windows and macOS answers are checked on Linux.
 */
const windows = (env: Record<string, string> = {}): PlatformEnv => ({
  platform: "win32",
  env: { APPDATA: "C:\\Users\\ada\\AppData\\Roaming", LOCALAPPDATA: "C:\\Users\\ada\\AppData\\Local", ...env },
  home: "C:\\Users\\ada",
});
const mac: PlatformEnv = { platform: "darwin", env: {}, home: "/Users/ada" };
const linux: PlatformEnv = { platform: "linux", env: {}, home: "/home/ada" };

describe("where indx keeps its files", () => {
  test("Windows: configuration in %APPDATA% (roams), index and cache in %LOCALAPPDATA%", () => {
    expect(configHome(windows())).toBe("C:\\Users\\ada\\AppData\\Roaming\\indx");
    expect(dataHome(windows())).toBe("C:\\Users\\ada\\AppData\\Local\\indx");
    expect(cacheHome(windows())).toBe("C:\\Users\\ada\\AppData\\Local\\indx\\cache");
  });

  test("Windows without the variables falls back under the profile folder", () => {
    const bare: PlatformEnv = { platform: "win32", env: {}, home: "C:\\Users\\ada" };
    expect(configHome(bare)).toBe("C:\\Users\\ada\\AppData\\Roaming\\indx");
    expect(dataHome(bare)).toBe("C:\\Users\\ada\\AppData\\Local\\indx");
  });

  test("macOS and Linux: the XDG defaults; XDG variables win on every platform", () => {
    expect(configHome(mac)).toBe("/Users/ada/.config/indx");
    expect(dataHome(linux)).toBe("/home/ada/.local/share/indx");
    expect(cacheHome(linux)).toBe("/home/ada/.cache/indx");
    expect(configHome({ ...linux, env: { XDG_CONFIG_HOME: "/cfg" } })).toBe("/cfg/indx");
    expect(dataHome(windows({ XDG_DATA_HOME: "D:\\xdg" }))).toBe("D:\\xdg\\indx");
  });

  test("~ expands to the home folder, with a backslash too on Windows", () => {
    expect(expandHome("~/Notes", mac)).toBe("/Users/ada/Notes");
    expect(expandHome("~\\Notes", windows())).toBe("C:\\Users\\ada\\Notes");
    expect(expandHome("~", linux)).toBe("/home/ada");
    expect(expandHome("~\\Notes", linux)).toBe("~\\Notes");
    expect(expandHome("/srv/notes", linux)).toBe("/srv/notes");
  });
});

describe("atomic replace on Windows", () => {
  const busy = (code: string) => Object.assign(new Error(code), { code });

  test("a target held open by another process is retried until the rename goes through", () => {
    let attempts = 0;
    const pauses: number[] = [];
    renameOver("a.tmp", "a.md", {
      platform: "win32",
      rename: () => {
        if (++attempts < 4) throw busy(attempts % 2 ? "EPERM" : "EBUSY");
      },
      sleep: (ms) => pauses.push(ms),
    });
    expect(attempts).toBe(4);
    expect(pauses).toEqual([10, 20, 40]);
  });

  test("it gives up after about two seconds with the last error", () => {
    const pauses: number[] = [];
    expect(() =>
      renameOver("a.tmp", "a.md", {
        platform: "win32",
        rename: () => {
          throw busy("EACCES");
        },
        sleep: (ms) => pauses.push(ms),
      }),
    ).toThrow("EACCES");
    const waited = pauses.reduce((a, b) => a + b, 0);
    expect(waited).toBeGreaterThanOrEqual(2000);
    expect(waited).toBeLessThan(2300);
  });

  test("other errors, and every error on POSIX, are not retried", () => {
    let attempts = 0;
    const failing = (code: string, platform: NodeJS.Platform) => () =>
      renameOver("a", "b", {
        platform,
        rename: () => {
          attempts++;
          throw busy(code);
        },
        sleep: () => {},
      });
    expect(failing("ENOSPC", "win32")).toThrow("ENOSPC");
    expect(failing("EPERM", "linux")).toThrow("EPERM");
    expect(attempts).toBe(2);
  });
});

describe("vault paths on Windows", () => {
  test("names Windows cannot hold are refused there, before any file is touched", () => {
    for (const bad of ["Notes/a:b.md", "Notes/x.md:stream", "CON.md", "Projects/nul", "lpt1.txt", "Notes/what?.md", "Draft./a.md", "a /b.md"])
      expect(() => normalizeVaultPath(bad, "path", "win32")).toThrow(/Windows refuses it/);
    expect(normalizeVaultPath("Projects/Console.md", "path", "win32")).toBe("Projects/Console.md");
    expect(normalizeVaultPath("Notes/a:b.md", "path", "linux")).toBe("Notes/a:b.md");
  });

  test("each problem is said in words", () => {
    expect(windowsNameProblem("a|b")).toContain("< > :");
    expect(windowsNameProblem("aux.md")).toContain("reserved device name (aux)");
    expect(windowsNameProblem("end.")).toContain("ending in a dot");
    expect(windowsNameProblem("Apollo Launch.md")).toBeNull();
  });

  test("watcher file names become vault paths: backslashes and decomposed names", () => {
    expect(watchedPath("Projects\\Apollo Launch.md")).toBe("Projects/Apollo Launch.md");
    expect(watchedPath("Caf\u0065\u0301.md")).toBe("Caf\u00e9.md");
  });
});

describe("sqlite-vec per platform", () => {
  test("each release target has its package and library file", () => {
    expect(vecLibraryFor("linux", "x64")).toEqual({ pkg: "sqlite-vec-linux-x64", file: "vec0.so" });
    expect(vecLibraryFor("linux", "arm64")).toEqual({ pkg: "sqlite-vec-linux-arm64", file: "vec0.so" });
    expect(vecLibraryFor("darwin", "arm64")).toEqual({ pkg: "sqlite-vec-darwin-arm64", file: "vec0.dylib" });
    expect(vecLibraryFor("darwin", "x64")).toEqual({ pkg: "sqlite-vec-darwin-x64", file: "vec0.dylib" });
    expect(vecLibraryFor("win32", "x64")).toEqual({ pkg: "sqlite-vec-windows-x64", file: "vec0.dll" });
    expect(vecLibraryFor("win32", "arm64")).toBeNull();
    expect(vecLibraryFor("freebsd", "x64")).toBeNull();
  });
});
