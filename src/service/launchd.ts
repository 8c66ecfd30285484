import { basename } from "node:path";
import { type ServiceSpec, serveArgs, xmlEscape } from "./spec.ts";

export const LAUNCHD_LABEL = "dev.indx.serve";

const str = (s: string) => `<string>${xmlEscape(s)}</string>`;

/**
 * A launchd agent for `indx serve`: loaded at login, restarted when it exits with an error, its
 * output in ~/Library/Logs/indx/ (where Console.app looks).
 */
export function launchdPlist(spec: ServiceSpec, logFile: string): string {
  const args = [spec.binary, ...serveArgs(spec)].map((a) => `\t\t${str(a)}`).join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by \`indx service install\` for the vault ${xmlEscape(basename(spec.vault)).replaceAll("--", "- -")}; \`indx service uninstall\` removes it. -->
<plist version="1.0">
<dict>
\t<key>Label</key>
\t${str(LAUNCHD_LABEL)}
\t<key>ProgramArguments</key>
\t<array>
${args}
\t</array>
\t<key>EnvironmentVariables</key>
\t<dict>
\t\t<key>INDX_CONFIG</key>
\t\t${str(spec.configFile)}
\t</dict>
\t<key>RunAtLoad</key>
\t<true/>
\t<key>KeepAlive</key>
\t<dict>
\t\t<key>SuccessfulExit</key>
\t\t<false/>
\t</dict>
\t<key>ThrottleInterval</key>
\t<integer>10</integer>
\t<key>ProcessType</key>
\t${str("Background")}
\t<key>StandardOutPath</key>
\t${str(logFile)}
\t<key>StandardErrorPath</key>
\t${str(logFile)}
</dict>
</plist>
`;
}
