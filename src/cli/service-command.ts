import { resolve } from "node:path";
import type { CommandDef } from "citty";
import { IndxError } from "../core/errors.ts";
import { currentPlatform } from "../core/platform-dirs.ts";
import { type InstallReport, installService, runCommand, type ServiceOptions, serviceStatus, uninstallService } from "../service/manager.ts";
import { Vault } from "../vault/vault.ts";
import { command } from "./command.ts";
import { configFromFlags, type GlobalFlags } from "./context.ts";
import { print, printErr } from "./io.ts";
import { indxCommand } from "./mcp-setups.ts";
import { chooseFormat, render } from "./output.ts";

const out = (flags: GlobalFlags, data: unknown, human: () => string) => print(render(data, chooseFormat(flags, process.stdout.isTTY === true), human));

const options = (dryRun: boolean): ServiceOptions => ({ platform: currentPlatform(), run: runCommand, dryRun, uid: process.getuid?.() ?? 0 });

/** This executable when it is the compiled indx, else `indx` found on PATH, else --binary. */
function binaryPath(given: string | undefined): string {
  if (given) return resolve(given);
  const cmd = indxCommand();
  const found = cmd === "indx" ? Bun.which("indx") : cmd;
  if (!found) throw new IndxError("validation_failed", "Cannot tell which indx binary the service should run: pass --binary <path to indx>.");
  return found;
}

const dryRunArg = { "dry-run": { type: "boolean", description: "Print what would be written and run; change nothing." } } as const;

const install = command({
  description: "Install and start a user service that runs `indx serve` for this vault, restarted when it fails and started at login.",
  long: "Linux: a systemd user unit (~/.config/systemd/user/indx.service), enabled and started with systemctl --user; logs in the journal (journalctl --user -u indx); `loginctl enable-linger` keeps it up while you are logged out. macOS: a launchd agent (~/Library/LaunchAgents/dev.indx.serve.plist), logs in ~/Library/Logs/indx/. Windows: a scheduled task (indx-serve) started at logon, logs in %LOCALAPPDATA%\\indx\\logs. The service runs this binary with the vault, data folder and config file this command resolves. Running it again rewrites the definition only when it changed.",
  examples: ["indx service install --vault ~/Notes", "indx service install --dry-run", "indx service install --binary /usr/local/bin/indx"],
  args: {
    ...dryRunArg,
    binary: { type: "string", description: "The indx executable the service runs (default: this one).", valueHint: "path" },
  },
  run(flags) {
    const config = configFromFlags(flags);
    const vault = Vault.open(config);
    const spec = { binary: binaryPath(flags.binary), vault: vault.root, dataDir: vault.dataDir, configFile: resolve(config.path) };
    const report = installService(spec, options(flags["dry-run"] === true));
    out(flags, report, () => installLines(report));
    if (report.problem) {
      printErr(`error: ${report.problem}`);
      process.exitCode = 1;
    }
  },
});

function installLines(r: InstallReport): string {
  if (r.dry_run)
    return [
      `Would ${r.file === "unchanged" ? "keep (unchanged)" : r.file === "would_create" ? "write" : "rewrite"} ${r.path}:`,
      "",
      r.content,
      r.commands.length ? `Would run:\n${r.commands.map((c) => `  ${c}`).join("\n")}` : "Nothing to run.",
    ].join("\n");
  const state = r.running ? "running" : r.problem ? "not started" : "installed";
  return [`${r.manager}: ${r.path} ${r.file}; the service is ${state}.`, `logs: ${r.logs}`].join("\n");
}

const uninstall = command({
  description: "Stop and remove the user service installed by `indx service install` (nothing to do when there is none).",
  examples: ["indx service uninstall --dry-run", "indx service uninstall"],
  args: dryRunArg,
  run(flags) {
    const r = uninstallService(options(flags["dry-run"] === true));
    out(flags, r, () =>
      !r.removed
        ? `No indx service installed (${r.path}).`
        : r.dry_run
          ? `Would run:\n${r.commands.map((c) => `  ${c}`).join("\n")}\nand remove ${r.path}.`
          : `Removed ${r.path}; the service is stopped.`,
    );
  },
});

const status = command({
  description: "Whether the user service is installed and running, and where its logs are.",
  examples: ["indx service status", "indx service status --json"],
  args: {},
  run(flags) {
    const r = serviceStatus(options(false));
    out(flags, r, () =>
      r.installed ? `${r.manager}: installed (${r.path}); ${r.state}.\nlogs: ${r.logs}` : `Not installed (indx service install). ${r.path}`,
    );
  },
});

export const serviceCommand: CommandDef = {
  meta: { description: "Keep `indx serve` running as a user service: install, uninstall, status." },
  subCommands: { install, uninstall, status },
};
