import { basename } from "node:path";
import { IndxError } from "../core/errors.ts";
import { type ServiceSpec, serveArgs } from "./spec.ts";

export const SYSTEMD_UNIT = "indx.service";

/**
 * One word of a systemd command line or Environment= value: double-quoted, with backslash and
 * quote escaped, `%` doubled (a specifier otherwise) and `$` doubled (a variable otherwise), as
 * systemd.service(5), "Command lines", and systemd.unit(5), "Specifiers", say.
 */
export function systemdQuote(word: string): string {
  return `"${word.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("%", "%%").replaceAll("$", "$$$$")}"`;
}

/**
 * The executable of a command line follows other rules than its arguments: systemd takes `$`
 * literally there and refuses quotes and backslashes outright ("Executable name contains special
 * characters"), so only `%` is escaped and those paths are refused with a way out.
 */
export function systemdExecutable(path: string): string {
  if (/["'\\]/.test(path))
    throw new IndxError(
      "validation_failed",
      "systemd cannot run an executable whose path holds a quote or a backslash: move indx elsewhere, or pass --binary.",
    );
  return `"${path.replaceAll("%", "%%")}"`;
}

/**
 * A systemd user unit for `indx serve`: restarted when it fails (not when it is stopped), logs to
 * the journal (`journalctl --user -u indx`), a private umask. Started at login, or at boot with
 * `loginctl enable-linger`.
 */
export function systemdUnit(spec: ServiceSpec): string {
  const exec = [systemdExecutable(spec.binary), ...serveArgs(spec).map(systemdQuote)].join(" ");
  return [
    "# Written by `indx service install`; `indx service uninstall` removes it.",
    "[Unit]",
    `Description=indx: serve the vault ${basename(spec.vault).replaceAll("%", "%%")} over REST and MCP`,
    "StartLimitIntervalSec=300",
    "StartLimitBurst=10",
    "",
    "[Service]",
    "Type=exec",
    `ExecStart=${exec}`,
    `Environment=${systemdQuote(`INDX_CONFIG=${spec.configFile}`)}`,
    "Restart=on-failure",
    "RestartSec=5",
    "TimeoutStopSec=30",
    "UMask=0077",
    "NoNewPrivileges=yes",
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ].join("\n");
}
