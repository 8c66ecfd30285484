import { existsSync } from "node:fs";
import { loadConfig, namedVaults } from "../config/load.ts";
import { toIndxError } from "../core/errors.ts";
import type { Caller, VaultDirectory, VaultEntry } from "../ops/context.ts";
import { Vault } from "../vault/vault.ts";
import type { App } from "./context.ts";

/** What a process knows of a named vault it may have opened: its state, and its note count when open. */
export type VaultState = Pick<VaultEntry, "state" | "error" | "notes">;

/** Callers who may learn of every vault: the person at the machine, the server's admin key, a server without auth. */
const OWNER_TOKEN_IDS = new Set(["admin", "anonymous"]);

/**
 * The vaults of one process for vault_list (docs/decisions.md, "vault_list"): the default vault
 * and the config file's `[vaults.<name>]` tables, read afresh on each call. A table naming the
 * default vault's own folder and data folder is that vault, listed once under its name.
 */
export class VaultDirectoryOf {
  constructor(
    private readonly defaultApp: App,
    /** The state of a named vault that is not the default one, already resolved to its folder. */
    private readonly stateOf: (name: string, vault: Vault) => Promise<VaultState>,
  ) {}

  /**
   * The directory as one vault's calls see it (`self`: a named vault, or null for the default):
   * a token of that vault learns only of that vault, as a token of vault A gets not_found on
   * vault B (docs/decisions.md, "Several vaults in one server").
   */
  forVault(self: string | null): VaultDirectory {
    return {
      list: async (caller) => {
        const all = await this.entries();
        if (seesEveryVault(caller)) return all;
        return all.filter((e) => (self === null ? e.default : e.name === self));
      },
    };
  }

  async entries(): Promise<VaultEntry[]> {
    const configPath = this.defaultApp.vault.config.path;
    const named = [...namedVaults(configPath)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const others: VaultEntry[] = [];
    let defaultName: string | null = null;
    let defaultFolder = this.defaultApp.vault.config.str("vault") ?? undefined;
    for (const [name, table] of named) {
      const resolved = resolveNamed(configPath, name);
      if (resolved instanceof Vault && defaultName === null && sameVault(resolved, this.defaultApp.vault)) {
        defaultName = name;
        defaultFolder = table.path;
        continue;
      }
      const state = resolved instanceof Vault ? await this.stateOf(name, resolved) : resolved;
      others.push({ name, default: false, ...state, folder: table.path });
    }
    const own: VaultEntry = { name: defaultName, default: true, ...appState(this.defaultApp), ...(defaultFolder ? { folder: defaultFolder } : {}) };
    return [own, ...others];
  }
}

function seesEveryVault(caller: Caller | undefined): boolean {
  return caller?.token_id === undefined || OWNER_TOKEN_IDS.has(caller.token_id);
}

/** Two configurations of one vault: one folder indexed into one data folder. */
export function sameVault(a: Vault, b: Vault): boolean {
  return a.root === b.root && a.dataDir === b.dataDir;
}

/** A named vault's folder and data folder, or why it has none (its folder gone, a bad table). */
export function resolveNamed(configPath: string, name: string): Vault | VaultState {
  try {
    return Vault.open(loadConfig({ vaultName: name, env: { ...process.env, INDX_CONFIG: configPath } }));
  } catch (err) {
    const e = toIndxError(err);
    return e.code === "not_found" ? { state: "missing" } : { state: "error", error: e.code };
  }
}

/** An opened vault's state: its note count, or the error its index answers (its folder gone: missing). */
export function appState(app: App): VaultState {
  if (!existsSync(app.vault.root)) return { state: "missing" };
  try {
    return { state: "open", notes: app.index.stats.counts().notes };
  } catch (err) {
    return { state: "error", error: toIndxError(err).code };
  }
}
