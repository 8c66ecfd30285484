import type { ArgsDef } from "citty";
import { loadConfig } from "../config/load.ts";
import { OpContext } from "../ops/context.ts";
import { Vault } from "../vault/vault.ts";

/** Flags every command accepts (citty does not pass a parent's flags down, so each leaf declares them). */
export const GLOBAL_ARGS = {
  vault: { type: "string", description: "Vault folder (else INDX_VAULT, else `vault` in the config file).", valueHint: "dir" },
  "data-dir": { type: "string", description: "Index and state folder for this vault (else INDX_DATA_DIR).", valueHint: "dir" },
  json: { type: "boolean", description: "JSON output (the default when stdout is not a terminal)." },
  format: { type: "string", description: "Output format: json | ndjson | csv | md | files | table.", valueHint: "fmt" },
} as const satisfies ArgsDef;

export interface GlobalFlags {
  vault?: string;
  "data-dir"?: string;
  json?: boolean;
  format?: string;
}

export function configFromFlags(flags: GlobalFlags, extra: Record<string, unknown> = {}) {
  return loadConfig({ flags: { vault: flags.vault, data_dir: flags["data-dir"], ...extra } });
}

/** A context for one CLI command: the vault from flags/env/config, all scopes (the user owns the files). */
export function openContext(flags: GlobalFlags, extra: Record<string, unknown> = {}): OpContext {
  return new OpContext(Vault.open(configFromFlags(flags, extra)));
}
