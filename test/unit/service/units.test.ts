import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchdPlist } from "../../../src/service/launchd.ts";
import type { ServiceSpec } from "../../../src/service/spec.ts";
import { systemdUnit } from "../../../src/service/systemd.ts";
import { taskArguments, utf16le, windowsTaskXml } from "../../../src/service/windows.ts";

/**
 * The three service definitions (docs/decisions.md, "A service that stays up"). Each is read back
 * by a parser that is not ours: systemd's own `systemd-analyze verify`, and Python's plistlib and
 * ElementTree for the plist and the task XML (both skip with their reason when the tool is absent).
 */

const dir = mkdtempSync(join(tmpdir(), "indx-service-units-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Paths with everything that breaks a naive writer: spaces, quotes, %, $, &, <, backslash. */
const HOSTILE = 'we ird %h $HOME "q" & <x> \\b';
/** What systemd accepts in an executable's path (it refuses quotes and backslashes there). */
const HOSTILE_BINARY = "we ird %h $HOME & <x>";

function stubBinary(folder: string): string {
  mkdirSync(folder, { recursive: true });
  const bin = join(folder, "indx");
  writeFileSync(bin, "#!/bin/sh\nexit 0\n");
  chmodSync(bin, 0o755);
  return bin;
}

const SYSTEMD_ANALYZE = Bun.which("systemd-analyze");
const PYTHON = Bun.which("python3");

function python(script: string, input: Uint8Array | string): { code: number; out: string; err: string } {
  const r = Bun.spawnSync([PYTHON ?? "python3", "-c", script], {
    stdin: typeof input === "string" ? Buffer.from(input) : input,
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode ?? 1, out: r.stdout.toString(), err: r.stderr.toString() };
}

describe("systemd user unit", () => {
  const plain: ServiceSpec = {
    binary: stubBinary(join(dir, "bin")),
    vault: "/home/ada/Notes",
    dataDir: "/home/ada/.local/share/indx/vaults/notes-1",
    configFile: "/home/ada/.config/indx/config.toml",
  };

  test("runs indx serve with the vault, data folder and config file, restarts on failure, is wanted by default.target", () => {
    const unit = systemdUnit(plain);
    expect(unit).toContain(`ExecStart="${plain.binary}" "serve" "--vault" "/home/ada/Notes" "--data-dir" "/home/ada/.local/share/indx/vaults/notes-1"`);
    expect(unit).toContain('Environment="INDX_CONFIG=/home/ada/.config/indx/config.toml"');
    expect(unit).toContain("Restart=on-failure");
    expect(unit).toContain("WantedBy=default.target");
  });

  test("quotes specifiers, variables, quotes and backslashes; an executable systemd cannot name is refused", () => {
    const unit = systemdUnit({ ...plain, binary: `/opt/${HOSTILE_BINARY}/indx`, vault: `/home/ada/${HOSTILE}` });
    expect(unit).toContain(`"/home/ada/we ird %%h $$HOME \\"q\\" & <x> \\\\b"`);
    // In the executable, $ is literal and % still a specifier.
    expect(unit).toContain('ExecStart="/opt/we ird %%h $HOME & <x>/indx" "serve"');
    expect(() => systemdUnit({ ...plain, binary: '/opt/it"s/indx' })).toThrow("quote or a backslash");
  });

  test.skipIf(!SYSTEMD_ANALYZE)("systemd-analyze verify accepts it, with a plain path and with a hostile binary path", () => {
    for (const [name, spec] of [
      ["plain", plain],
      ["hostile", { ...plain, binary: stubBinary(join(dir, HOSTILE_BINARY)), vault: `/srv/${HOSTILE}` }],
    ] as const) {
      const folder = join(dir, `unit-${name}`);
      mkdirSync(folder, { recursive: true });
      const file = join(folder, "indx.service");
      writeFileSync(file, systemdUnit(spec));
      const r = Bun.spawnSync([SYSTEMD_ANALYZE ?? "systemd-analyze", "verify", file], { stdout: "pipe", stderr: "pipe" });
      // A wrongly quoted binary path would name a file that does not exist ("is not executable").
      expect({ name, code: r.exitCode, stderr: r.stderr.toString() }).toEqual({ name, code: 0, stderr: "" });
    }
  });
});

describe("launchd agent", () => {
  const spec: ServiceSpec = {
    binary: "/usr/local/bin/indx",
    vault: `/Users/ada/${HOSTILE}`,
    dataDir: "/Users/ada/.local/share/indx/vaults/notes-1",
    configFile: "/Users/ada/.config/indx/config.toml",
  };
  const log = "/Users/ada/Library/Logs/indx/serve.log";

  test("escapes paths for XML and names every field", () => {
    const plist = launchdPlist(spec, log);
    expect(plist).toContain("<string>/Users/ada/we ird %h $HOME &quot;q&quot; &amp; &lt;x&gt; \\b</string>");
    expect(plist).not.toContain("<x>");
    expect(plist).toContain("<key>RunAtLoad</key>\n\t<true/>");
  });

  test.skipIf(!PYTHON)("is a well-formed property list whose fields are right (read by Python's plistlib)", () => {
    const r = python("import plistlib,sys,json; print(json.dumps(plistlib.loads(sys.stdin.buffer.read())))", launchdPlist(spec, log));
    expect(r.err).toBe("");
    expect(JSON.parse(r.out)).toEqual({
      Label: "dev.indx.serve",
      ProgramArguments: ["/usr/local/bin/indx", "serve", "--vault", spec.vault, "--data-dir", spec.dataDir],
      EnvironmentVariables: { INDX_CONFIG: spec.configFile },
      RunAtLoad: true,
      KeepAlive: { SuccessfulExit: false },
      ThrottleInterval: 10,
      ProcessType: "Background",
      StandardOutPath: log,
      StandardErrorPath: log,
    });
  });
});

describe("Windows scheduled task", () => {
  const spec: ServiceSpec = {
    binary: "C:\\Program Files\\indx\\indx.exe",
    vault: "C:\\Users\\Ada\\My Notes & <Drafts>",
    dataDir: "C:\\Users\\Ada\\AppData\\Local\\indx\\vaults\\notes-1",
    configFile: "C:\\Users\\Ada\\AppData\\Roaming\\indx\\config.toml",
  };
  const log = "C:\\Users\\Ada\\AppData\\Local\\indx\\logs\\serve.log";

  test("cmd.exe arguments quote every path and keep the outer quotes for /s", () => {
    expect(taskArguments(spec, log)).toBe(
      '/d /s /c "set "INDX_CONFIG=C:\\Users\\Ada\\AppData\\Roaming\\indx\\config.toml" && "C:\\Program Files\\indx\\indx.exe" serve --vault "C:\\Users\\Ada\\My Notes & <Drafts>" --data-dir C:\\Users\\Ada\\AppData\\Local\\indx\\vaults\\notes-1 >> "C:\\Users\\Ada\\AppData\\Local\\indx\\logs\\serve.log" 2>&1"',
    );
  });

  test("a path cmd.exe would rewrite (%VAR%) is refused", () => {
    expect(() => taskArguments({ ...spec, vault: "C:\\%USERNAME%\\Notes" }, log)).toThrow("cannot be passed to a scheduled task");
  });

  test("the file is UTF-16 with a byte-order mark, as schtasks reads it", () => {
    const bytes = utf16le(windowsTaskXml(spec, log, "DESKTOP\\ada", "C:\\Windows\\System32\\cmd.exe"));
    expect([...bytes.subarray(0, 4)]).toEqual([0xff, 0xfe, 0x3c, 0x00]);
  });

  test.skipIf(!PYTHON)("is well-formed task XML whose fields are right (read by Python's ElementTree)", () => {
    const bytes = utf16le(windowsTaskXml(spec, log, "DESKTOP\\ada", "C:\\Windows\\System32\\cmd.exe"));
    const script = `
import sys, json, xml.etree.ElementTree as ET
ns = {"t": "http://schemas.microsoft.com/windows/2004/02/mit/task"}
root = ET.fromstring(sys.stdin.buffer.read())
g = lambda p: root.find(p, ns).text
print(json.dumps({
  "uri": g("t:RegistrationInfo/t:URI"),
  "trigger_user": g("t:Triggers/t:LogonTrigger/t:UserId"),
  "logon": g("t:Principals/t:Principal/t:LogonType"),
  "level": g("t:Principals/t:Principal/t:RunLevel"),
  "instances": g("t:Settings/t:MultipleInstancesPolicy"),
  "limit": g("t:Settings/t:ExecutionTimeLimit"),
  "restart": g("t:Settings/t:RestartOnFailure/t:Count"),
  "command": g("t:Actions/t:Exec/t:Command"),
  "arguments": g("t:Actions/t:Exec/t:Arguments"),
}))`;
    const r = python(script, bytes);
    expect(r.err).toBe("");
    expect(JSON.parse(r.out)).toEqual({
      uri: "\\indx-serve",
      trigger_user: "DESKTOP\\ada",
      logon: "InteractiveToken",
      level: "LeastPrivilege",
      instances: "IgnoreNew",
      limit: "PT0S",
      restart: "999",
      command: "C:\\Windows\\System32\\cmd.exe",
      arguments: taskArguments(spec, log),
    });
  });
});
