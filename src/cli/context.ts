import { basename } from "node:path";
import { App } from "../app/context.ts";
import { CONFIG_KEYS } from "../config/keys.ts";
import { loadConfig, namedVaults, VAULT_NAME } from "../config/load.ts";
import { didYouMean } from "../core/suggest.ts";
import { Vault } from "../vault/vault.ts";
import { printErr } from "./io.ts";

export interface GlobalFlags {
  vault?: string;
  "data-dir"?: string;
  json?: boolean;
  format?: string;
}

let warnedUnknownKeys = false;

/** The configuration of this command; unknown keys in the file are warned about on stderr, once. */
export function configFromFlags(flags: GlobalFlags, extra: Record<string, unknown> = {}, opts: { repairing?: string } = {}) {
  const config = loadConfig({ flags: { vault: flags.vault, data_dir: flags["data-dir"], ...extra }, ...opts, ...namedVaultOf(flags.vault) });
  if (!warnedUnknownKeys)
    for (const key of config.unknownKeys)
      printErr(
        `warning: ${basename(config.path)}: unknown key ${key}, ignored.${didYouMean(
          key,
          CONFIG_KEYS.map((k) => k.key),
        )}`,
      );
  warnedUnknownKeys = true;
  return config;
}

/**
 * `--vault work` names a configured vault when the file has `[vaults.work]`, even if a folder of
 * that name is in the working directory: `--vault ./work` reaches the folder (docs/decisions.md,
 * "Several vaults in one server").
 */
function namedVaultOf(vault: string | undefined): { vaultName?: string } {
  if (vault === undefined || !VAULT_NAME.test(vault)) return {};
  return namedVaults().has(vault) ? { vaultName: vault } : {};
}

/** A context for one CLI command: the vault from flags/env/config, all scopes (the user owns the files). */
export function openContext(flags: GlobalFlags, extra: Record<string, unknown> = {}): App {
  return new App(Vault.open(configFromFlags(flags, extra)), { surface: "cli" });
}
