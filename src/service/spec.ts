import { IndxError } from "../core/errors.ts";

/** What a service runs: `indx serve` for one vault, with its data folder and config file named. */
export interface ServiceSpec {
  /** The indx executable, absolute. */
  binary: string;
  /** The vault folder, absolute. */
  vault: string;
  /** The data folder, absolute. */
  dataDir: string;
  /** The config file the service reads (INDX_CONFIG): the one this command read, so both agree. */
  configFile: string;
}

/** The arguments after the binary. */
export function serveArgs(spec: ServiceSpec): string[] {
  return ["serve", "--vault", spec.vault, "--data-dir", spec.dataDir];
}

/**
 * A path that goes into a unit, a plist or a task must be absolute and free of control characters
 * (a newline would end a systemd line; docs/decisions.md, "A service that stays up").
 */
export function checkSpec(spec: ServiceSpec, isAbsolute: (p: string) => boolean): void {
  for (const [what, path] of [
    ["the indx binary", spec.binary],
    ["the vault", spec.vault],
    ["the data folder", spec.dataDir],
    ["the config file", spec.configFile],
  ] as const) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    if (/[\u0000-\u001f\u007f]/.test(path))
      throw new IndxError("validation_failed", `The path of ${what} holds a control character: a service cannot name it.`);
    if (!isAbsolute(path)) throw new IndxError("validation_failed", `The path of ${what} must be absolute for a service.`);
  }
}

/** Escapes text for XML element content and attribute values. */
export function xmlEscape(s: string): string {
  return s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;").replaceAll("'", "&apos;");
}
