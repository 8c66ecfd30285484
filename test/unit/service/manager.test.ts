import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PlatformEnv } from "../../../src/core/platform-dirs.ts";
import { installService, type Runner, serviceStatus, uninstallService } from "../../../src/service/manager.ts";

/**
 * install / uninstall / status against a stand-in for the platform's service manager: a runner
 * that keeps the state systemctl, launchctl or schtasks would (loaded, running) and records every
 * command. Everything is written under a temporary home (docs/decisions.md, "A service that stays up").
 */

const homes: string[] = [];
const startDir = process.cwd();
afterEach(() => {
  process.chdir(startDir);
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

function home(platform: NodeJS.Platform): PlatformEnv {
  const h = mkdtempSync(join(tmpdir(), "indx-service-"));
  homes.push(h);
  // Off Windows, a Windows path (this home joined with backslashes) is a relative file name:
  // work inside the temporary home so it lands there, never in the checkout.
  if (platform === "win32" && process.platform !== "win32") process.chdir(h);
  const env: Record<string, string> = platform === "win32" ? { LOCALAPPDATA: join(h, "Local"), USERDOMAIN: "DESK", USERNAME: "ada" } : {};
  return { platform, env, home: h };
}

/** A service manager that works: it remembers what is running. */
function manager(): { run: Runner; calls: string[]; running: () => boolean } {
  let running = false;
  const calls: string[] = [];
  const run: Runner = (argv) => {
    calls.push(argv.join(" "));
    const a = argv.join(" ");
    if (/is-active|launchctl print|schtasks \/Query/.test(a)) {
      if (argv[0] === "systemctl") return { code: running ? 0 : 3, stdout: running ? "active\n" : "inactive\n", stderr: "" };
      if (argv[0] === "launchctl")
        return running ? { code: 0, stdout: "\tstate = running\n", stderr: "" } : { code: 113, stdout: "", stderr: "Could not find service" };
      return running
        ? { code: 0, stdout: '"\\indx-serve","N/A","Running"\r\n', stderr: "" }
        : { code: 1, stdout: "", stderr: "ERROR: The system cannot find the file specified." };
    }
    if (/ (restart|start) |bootstrap|\/Run /.test(a)) running = true;
    if (/disable --now|bootout|\/End |\/Delete /.test(a)) running = false;
    return { code: 0, stdout: "", stderr: "" };
  };
  return { run, calls, running: () => running };
}

const spec = (h: PlatformEnv) =>
  h.platform === "win32"
    ? { binary: "C:\\indx\\indx.exe", vault: "C:\\Notes", dataDir: "C:\\data", configFile: "C:\\cfg\\config.toml" }
    : {
        binary: "/usr/local/bin/indx",
        vault: "/home/ada/Notes",
        dataDir: "/home/ada/.local/share/indx/vaults/n",
        configFile: "/home/ada/.config/indx/config.toml",
      };

describe.each([
  ["linux", "systemd", ".config/systemd/user/indx.service"],
  ["darwin", "launchd", "Library/LaunchAgents/dev.indx.serve.plist"],
  ["win32", "schtasks", "Local/indx/service/indx-serve.xml"],
] as const)("%s", (platform, name, rel) => {
  test("--dry-run writes nothing and runs nothing, and says what it would do", () => {
    const h = home(platform);
    const m = manager();
    const r = installService(spec(h), { platform: h, run: m.run, dryRun: true });
    expect(r.manager).toBe(name);
    expect(r.file).toBe("would_create");
    expect(r.path.replaceAll("\\", "/")).toEndWith(rel);
    expect(r.content).toContain(spec(h).vault);
    expect(r.commands.length).toBeGreaterThan(0);
    expect(m.calls).toEqual([]);
    expect(existsSync(r.path)).toBe(false);
    const u = uninstallService({ platform: h, run: m.run, dryRun: true });
    expect(u.removed).toBe(false);
  });

  test("install is idempotent: the second run rewrites nothing and leaves a running service alone", () => {
    const h = home(platform);
    const m = manager();
    const first = installService(spec(h), { platform: h, run: m.run, uid: 501 });
    expect(first.file).toBe("created");
    expect(first.running).toBe(true);
    const written = readFileSync(first.path);
    const calls = m.calls.length;
    const second = installService(spec(h), { platform: h, run: m.run, uid: 501 });
    expect(second.file).toBe("unchanged");
    expect(second.running).toBe(true);
    expect(readFileSync(second.path).equals(written)).toBe(true);
    // Nothing restarts an unchanged, running service.
    expect(m.calls.slice(calls).filter((c) => /restart|bootout|bootstrap|\/Create|\/Run /.test(c))).toEqual([]);
    expect(serviceStatus({ platform: h, run: m.run, uid: 501 })).toMatchObject({ installed: true, running: true });
    // A changed vault rewrites the file and restarts the service with it.
    const third = installService({ ...spec(h), vault: `${spec(h).vault}2` }, { platform: h, run: m.run, uid: 501 });
    expect(third.file).toBe("updated");
    expect(third.commands.some((c) => /restart|bootstrap|\/Create/.test(c))).toBe(true);
  });

  test("uninstall stops and removes it; a second uninstall has nothing to do", () => {
    const h = home(platform);
    const m = manager();
    const path = installService(spec(h), { platform: h, run: m.run }).path;
    const dry = uninstallService({ platform: h, run: m.run, dryRun: true });
    expect(dry).toMatchObject({ removed: true, dry_run: true });
    expect(existsSync(path)).toBe(true);
    const first = uninstallService({ platform: h, run: m.run });
    expect(first.removed).toBe(true);
    expect(existsSync(path)).toBe(false);
    expect(m.running()).toBe(false);
    const again = uninstallService({ platform: h, run: m.run });
    expect(again).toMatchObject({ removed: false, commands: [] });
    expect(serviceStatus({ platform: h, run: m.run })).toMatchObject({ installed: false, running: false, state: "not installed" });
  });
});

describe("a service manager that is missing or refuses", () => {
  test("the file is written, nothing claims to run, and the commands to run by hand are given", () => {
    const h = home("linux");
    const noBus: Runner = () => ({ code: 1, stdout: "", stderr: "Failed to connect to bus: No medium found\n" });
    const r = installService(spec(h), { platform: h, run: noBus });
    expect(r.file).toBe("created");
    expect(r.running).toBe(false);
    expect(r.problem).toContain("Failed to connect to bus");
    expect(r.problem).toContain("systemctl --user enable indx.service");
    expect(serviceStatus({ platform: h, run: noBus })).toMatchObject({ installed: true, running: null });
    const absent: Runner = () => ({ code: 127, stdout: "", stderr: "" });
    expect(installService(spec(h), { platform: h, run: absent }).problem).toContain("systemctl is not available here");
  });

  test("relative paths are refused before anything is written", () => {
    const h = home("linux");
    const m = manager();
    expect(() => installService({ ...spec(h), vault: "Notes" }, { platform: h, run: m.run })).toThrow("must be absolute");
    expect(() => installService({ ...spec(h), vault: "/a\nExecStartPre=/bin/evil" }, { platform: h, run: m.run })).toThrow("control character");
    expect(m.calls).toEqual([]);
  });
});
