import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { posix, win32 } from "node:path";
import { errnoOf } from "../core/errno.ts";
import type { PlatformEnv } from "../core/platform-dirs.ts";
import { writeFileAtomic } from "../core/write-file-atomic.ts";
import { LAUNCHD_LABEL, launchdPlist } from "./launchd.ts";
import { checkSpec, type ServiceSpec } from "./spec.ts";
import { SYSTEMD_UNIT, systemdUnit } from "./systemd.ts";
import { utf16le, WINDOWS_TASK, windowsTaskXml } from "./windows.ts";

export type ServiceManager = "systemd" | "launchd" | "schtasks";

/** Runs a service manager's command; code 127 when the program is not there. */
export type Runner = (argv: readonly string[]) => { code: number; stdout: string; stderr: string };

export const runCommand: Runner = (argv) => {
  const [cmd = "", ...args] = argv;
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout: 30_000 });
  if (r.error) return { code: errnoOf(r.error) === "ENOENT" ? 127 : 1, stdout: "", stderr: r.error.message };
  return { code: r.status ?? 1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
};

/** Where a platform's service definition and logs live, and how its manager is driven. */
interface Layout {
  manager: ServiceManager;
  file: string;
  logs: string;
  /** Command that exits 0 when the service is loaded/running, and how to read its state from the output. */
  state(run: Runner): { running: boolean | null; state: string };
  /** Commands that load and start the service; `changed` says whether the definition was (re)written. */
  enable(changed: boolean, running: boolean | null): string[][];
  disable: string[][];
  render(spec: ServiceSpec): string | Uint8Array;
  isAbsolute(p: string): boolean;
}

/** The platform's layout; `uid` names the launchd domain (gui/<uid>). */
function layoutOf(p: PlatformEnv, uid: number): Layout {
  if (p.platform === "darwin") {
    const file = posix.join(p.home, "Library", "LaunchAgents", `${LAUNCHD_LABEL}.plist`);
    const logs = posix.join(p.home, "Library", "Logs", "indx", "serve.log");
    const target = `gui/${uid}/${LAUNCHD_LABEL}`;
    return {
      manager: "launchd",
      file,
      logs,
      state(run) {
        const r = run(["launchctl", "print", target]);
        if (r.code === 127) return { running: null, state: "launchctl not found" };
        if (r.code !== 0) return { running: false, state: "not loaded" };
        const state = /^\s*state = (\S+)/m.exec(r.stdout)?.[1] ?? "loaded";
        return { running: state === "running", state };
      },
      enable: (changed, running) =>
        !changed && running
          ? []
          : [
              ["launchctl", "bootout", target],
              ["launchctl", "bootstrap", `gui/${uid}`, file],
            ],
      disable: [["launchctl", "bootout", target]],
      render: (spec) => launchdPlist(spec, logs),
      isAbsolute: posix.isAbsolute,
    };
  }
  if (p.platform === "win32") {
    const local = p.env.LOCALAPPDATA || win32.join(p.home, "AppData", "Local");
    const file = win32.join(local, "indx", "service", `${WINDOWS_TASK}.xml`);
    const logs = win32.join(local, "indx", "logs", "serve.log");
    const user = p.env.USERDOMAIN && p.env.USERNAME ? `${p.env.USERDOMAIN}\\${p.env.USERNAME}` : (p.env.USERNAME ?? "");
    const cmdExe = win32.join(p.env.SystemRoot || "C:\\Windows", "System32", "cmd.exe");
    return {
      manager: "schtasks",
      file,
      logs,
      state(run) {
        const r = run(["schtasks", "/Query", "/TN", WINDOWS_TASK, "/FO", "CSV", "/NH"]);
        if (r.code === 127) return { running: null, state: "schtasks not found" };
        if (r.code !== 0) return { running: false, state: "not registered" };
        const state = /"([^"]*)"\s*$/.exec(r.stdout.trim())?.[1] ?? "registered";
        return { running: state === "Running", state };
      },
      enable: (changed, running) =>
        !changed && running
          ? []
          : [
              ["schtasks", "/Create", "/TN", WINDOWS_TASK, "/XML", file, "/F"],
              ["schtasks", "/Run", "/TN", WINDOWS_TASK],
            ],
      disable: [
        ["schtasks", "/End", "/TN", WINDOWS_TASK],
        ["schtasks", "/Delete", "/TN", WINDOWS_TASK, "/F"],
      ],
      render: (spec) => utf16le(windowsTaskXml(spec, logs, user, cmdExe)),
      isAbsolute: win32.isAbsolute,
    };
  }
  const file = posix.join(p.env.XDG_CONFIG_HOME || posix.join(p.home, ".config"), "systemd", "user", SYSTEMD_UNIT);
  return {
    manager: "systemd",
    file,
    logs: `journalctl --user -u ${SYSTEMD_UNIT}`,
    state(run) {
      const r = run(["systemctl", "--user", "is-active", SYSTEMD_UNIT]);
      const state = r.stdout.trim();
      if (r.code === 127) return { running: null, state: "systemctl not found" };
      if (!/^[a-z-]+$/.test(state)) return { running: null, state: `no systemd user manager (${firstLine(r.stderr) || "systemctl failed"})` };
      return { running: state === "active", state };
    },
    enable: (changed) => [
      ["systemctl", "--user", "daemon-reload"],
      ["systemctl", "--user", "enable", SYSTEMD_UNIT],
      // A rewritten unit takes effect only on a restart; an unchanged one is started if it is not running.
      ["systemctl", "--user", changed ? "restart" : "start", SYSTEMD_UNIT],
    ],
    disable: [
      ["systemctl", "--user", "disable", "--now", SYSTEMD_UNIT],
      ["systemctl", "--user", "daemon-reload"],
    ],
    render: systemdUnit,
    isAbsolute: posix.isAbsolute,
  };
}

const firstLine = (s: string) => s.trim().split("\n")[0] ?? "";

/** A command as a person would type it (for --dry-run and for "run this yourself"). */
export function shellLine(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./\\-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`)).join(" ");
}

export interface ServiceOptions {
  platform: PlatformEnv;
  run: Runner;
  dryRun?: boolean;
  /** The user id of the launchd domain (macOS). */
  uid?: number;
}

export interface InstallReport {
  manager: ServiceManager;
  path: string;
  /** What happened to the definition file (`would_create`/`would_update` in a dry run). */
  file: "created" | "updated" | "unchanged" | "would_create" | "would_update";
  /** The definition as written (or as it would be, in a dry run); a Windows task shown as text. */
  content: string;
  commands: string[];
  /** Whether the manager now runs it: null in a dry run. */
  running: boolean | null;
  logs: string;
  dry_run: boolean;
  /** Why it is not running, and what to do. */
  problem?: string;
}

/**
 * Writes the service definition (atomically, only when it changed) and has the platform's manager
 * load and start it. Running it twice changes nothing the second time. A manager that is missing
 * or refuses leaves the file in place and says how to start it by hand.
 */
export function installService(spec: ServiceSpec, o: ServiceOptions): InstallReport {
  const layout = layoutOf(o.platform, o.uid ?? 0);
  checkSpec(spec, layout.isAbsolute);
  const rendered = layout.render(spec);
  const bytes = typeof rendered === "string" ? Buffer.from(rendered, "utf8") : Buffer.from(rendered);
  const previous = existsSync(layout.file) ? readFileSync(layout.file) : null;
  const changed = previous === null || !previous.equals(bytes);
  const content = typeof rendered === "string" ? rendered : bytes.subarray(2).toString("utf16le");
  const base = { manager: layout.manager, path: layout.file, content, logs: layout.logs };
  if (o.dryRun) {
    const commands = layout.enable(changed, null).map(shellLine);
    return { ...base, file: previous === null ? "would_create" : changed ? "would_update" : "unchanged", commands, running: null, dry_run: true };
  }
  if (changed) writeAtomic(layout.file, bytes);
  if (layout.manager !== "systemd") mkdirSync(dirnameOf(o.platform, layout.logs), { recursive: true });
  const before = layout.state(o.run);
  const steps = layout.enable(changed, before.running);
  const commands: string[] = [];
  for (const [i, step] of steps.entries()) {
    commands.push(shellLine(step));
    const r = o.run(step);
    // launchd's bootout of a job that is not loaded fails, and that is fine.
    if (r.code !== 0 && !(layout.manager === "launchd" && i === 0)) {
      const remaining = steps.slice(i).map(shellLine).join(" && ");
      const why = r.code === 127 ? `${step[0]} is not available here` : firstLine(r.stderr) || `${step[0]} exited with ${r.code}`;
      return {
        ...base,
        file: previous === null ? "created" : changed ? "updated" : "unchanged",
        commands,
        running: false,
        dry_run: false,
        problem: `${why}. The service file is written; start it with: ${remaining}`,
      };
    }
  }
  const after = layout.state(o.run);
  return { ...base, file: previous === null ? "created" : changed ? "updated" : "unchanged", commands, running: after.running, dry_run: false };
}

export interface UninstallReport {
  manager: ServiceManager;
  path: string;
  /** Whether a definition was there to remove (false: nothing to do). */
  removed: boolean;
  commands: string[];
  dry_run: boolean;
}

/** Stops and unloads the service and deletes its definition; with nothing installed it does nothing. */
export function uninstallService(o: ServiceOptions): UninstallReport {
  const layout = layoutOf(o.platform, o.uid ?? 0);
  const installed = existsSync(layout.file);
  const base = { manager: layout.manager, path: layout.file };
  if (!installed) return { ...base, removed: false, commands: [], dry_run: o.dryRun === true };
  const commands = layout.disable.map(shellLine);
  if (o.dryRun) return { ...base, removed: true, commands, dry_run: true };
  // Failures here (the manager is gone, the job was never loaded) do not keep the file.
  for (const step of layout.disable) o.run(step);
  rmSync(layout.file, { force: true });
  if (layout.manager === "systemd") o.run(["systemctl", "--user", "daemon-reload"]);
  return { ...base, removed: true, commands, dry_run: false };
}

export interface StatusReport {
  manager: ServiceManager;
  path: string;
  installed: boolean;
  /** null when the manager cannot be asked. */
  running: boolean | null;
  state: string;
  logs: string;
}

export function serviceStatus(o: ServiceOptions): StatusReport {
  const layout = layoutOf(o.platform, o.uid ?? 0);
  const installed = existsSync(layout.file);
  const { running, state } = installed ? layout.state(o.run) : { running: false, state: "not installed" };
  return { manager: layout.manager, path: layout.file, installed, running, state, logs: layout.logs };
}

function dirnameOf(p: PlatformEnv, path: string): string {
  return (p.platform === "win32" ? win32 : posix).dirname(path);
}

function writeAtomic(path: string, bytes: Uint8Array): void {
  const dir = path.slice(0, Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")));
  mkdirSync(dir, { recursive: true });
  writeFileAtomic(path, bytes, 0o644);
}
