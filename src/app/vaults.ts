import { type Config, loadConfig, namedVaults, VAULT_NAME } from "../config/load.ts";
import { IndxError, toIndxError } from "../core/errors.ts";
import { Vault } from "../vault/vault.ts";
import { App } from "./context.ts";

/** What a server keeps beside each opened vault's App (its HTTP routes, watcher…), built by the surface. */
export interface OpenedVault<T> {
  app: App;
  served: T;
}

/**
 * The named vaults of one server (docs/decisions.md, "Several vaults in one server"): one App per
 * vault, opened on its first request and kept. The config file is read again on every lookup, so a
 * vault added or removed needs no restart. A vault that fails to open (missing folder, corrupt
 * index) fails alone, as its own typed error, and is tried again on its next request.
 */
export class VaultRegistry<T> {
  private readonly opened = new Map<string, OpenedVault<T>>();
  private readonly opening = new Map<string, Promise<OpenedVault<T>>>();

  constructor(
    private readonly configPath: string,
    /** Brings an opened vault into service (index up to date, watcher, routes). */
    private readonly serve: (app: App, name: string) => Promise<T>,
    private readonly configOf: (name: string) => Config = (name) => loadConfig({ vaultName: name, env: { ...process.env, INDX_CONFIG: configPath } }),
  ) {}

  /** The configured names, sorted. */
  names(): string[] {
    return [...namedVaults(this.configPath).keys()].sort();
  }

  /** The vault named `name`, opened if need be; not_found for a name the config file does not hold. */
  async get(name: string): Promise<OpenedVault<T>> {
    const entry = VAULT_NAME.test(name) ? namedVaults(this.configPath).get(name) : undefined;
    if (!entry) throw new IndxError("not_found", "No such vault.");
    const known = this.opened.get(name);
    // The folder gone under a running server: its operations answer vault_missing (src/ops/invoke.ts).
    if (known) return known;
    const pending = this.opening.get(name) ?? this.open(name);
    this.opening.set(name, pending);
    try {
      return await pending;
    } finally {
      this.opening.delete(name);
    }
  }

  private async open(name: string): Promise<OpenedVault<T>> {
    let app: App | null = null;
    try {
      app = new App(Vault.open(this.configOf(name)));
      const served = await this.serve(app, name);
      const opened = { app, served };
      this.opened.set(name, opened);
      return opened;
    } catch (err) {
      app?.close();
      const e = toIndxError(err);
      // A missing folder says vault_missing, by the vault's name only (docs/contracts.md).
      throw e.code === "not_found"
        ? new IndxError("vault_missing", `The vault folder of ${name} is gone: deleted, renamed or unmounted. indx answers again once it is back.`, {
            vault: name,
          })
        : e;
    }
  }

  /** Every opened vault, to stop them with the server. */
  all(): OpenedVault<T>[] {
    return [...this.opened.values()];
  }
}
