import { basename } from "node:path";
import { IndxError } from "../core/errors.ts";
import { type ServiceSpec, serveArgs, xmlEscape } from "./spec.ts";

export const WINDOWS_TASK = "indx-serve";

/** cmd.exe expands %VAR% even inside quotes, and a quote cannot be escaped there: such a path cannot be passed safely. */
function cmdWord(word: string): string {
  if (/["%]/.test(word))
    throw new IndxError("validation_failed", "A path holding % or a double quote cannot be passed to a scheduled task; move it or rename it.");
  return /^[\w.:\\/-]+$/.test(word) ? word : `"${word}"`;
}

/**
 * The cmd.exe arguments that run `indx serve` with INDX_CONFIG set and its output appended to the
 * log file (Task Scheduler keeps none). `/s /c "…"` strips exactly the outer quotes and runs the
 * rest as written, so the inner quotes stay.
 */
export function taskArguments(spec: ServiceSpec, logFile: string): string {
  for (const path of [spec.binary, spec.configFile, logFile]) cmdWord(path);
  const command = [`"${spec.binary}"`, ...serveArgs(spec).map(cmdWord)].join(" ");
  return `/d /s /c "set "INDX_CONFIG=${spec.configFile}" && ${command} >> "${logFile}" 2>&1"`;
}

/**
 * A Task Scheduler task (schema 1.2, as `schtasks /Create /XML` takes it): started at the user's
 * logon, restarted after a failure, never stopped for running long, never two at once.
 */
export function windowsTaskXml(spec: ServiceSpec, logFile: string, user: string, cmdExe: string): string {
  return `<?xml version="1.0" encoding="UTF-16"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Description>${xmlEscape(`indx: serve the vault ${basename(spec.vault)} over REST and MCP. Written by indx service install.`)}</Description>
    <URI>\\${WINDOWS_TASK}</URI>
  </RegistrationInfo>
  <Triggers>
    <LogonTrigger>
      <Enabled>true</Enabled>
      <UserId>${xmlEscape(user)}</UserId>
    </LogonTrigger>
  </Triggers>
  <Principals>
    <Principal id="Author">
      <UserId>${xmlEscape(user)}</UserId>
      <LogonType>InteractiveToken</LogonType>
      <RunLevel>LeastPrivilege</RunLevel>
    </Principal>
  </Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>
    <RestartOnFailure>
      <Interval>PT1M</Interval>
      <Count>999</Count>
    </RestartOnFailure>
    <StartWhenAvailable>true</StartWhenAvailable>
    <Enabled>true</Enabled>
    <Hidden>false</Hidden>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>${xmlEscape(cmdExe)}</Command>
      <Arguments>${xmlEscape(taskArguments(spec, logFile))}</Arguments>
    </Exec>
  </Actions>
</Task>
`;
}

/** schtasks reads a task file as UTF-16 (little-endian, with its byte-order mark). */
export function utf16le(text: string): Uint8Array {
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
}
