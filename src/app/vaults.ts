import { type Config, loadConfig, namedVaults, VAULT_NAME } from "../config/load.ts";
import { IndxError, toIndxError } from "../core/errors.ts";
import { Vault } from "../vault/vault.ts";
import { App } from "./context.ts";
import { appState, type VaultState } from "./vault-directory.ts";

/** What a server keeps beside each opened vault's App (its HTTP routes, watcher…), built by the surface. */
export interface OpenedVault<T> {
  app: App;
  served: T;
}

/** A vault's table as it was when its App was opened: a changed folder or data folder is another vault. */
interface Opened<T> extends OpenedVault<T> {
  path: string;
  dataDir: string | undefined;
  /** The default vault's own App and routes, lent: never stopped here. */
  lent: boolean;
}

export interface VaultRegistryOptions<T> {
  /** Brings an opened vault into service (index up to date, watcher, routes). */
  serve: (app: App, name: string) => Promise<T>;
  /** Takes a vault out of service: what `serve` started stops, and its App closes. */
  retire: (opened: OpenedVault<T>) => Promise<void>;
  /** The default vault's App and routes when `vault` is that same vault (one App per index). */
  lend?: (vault: Vault) => OpenedVault<T> | null;
  configOf?: (name: string) => Config;
}

/**
 * The named vaults of one server (docs/decisions.md, "Several vaults in one server"): one App per
 * vault, opened on its first request and kept. The config file is read again on every lookup and
 * by `reconcile`, so a vault added, removed or moved needs no restart. A vault that fails to open
 * (missing folder, corrupt index) fails alone, as its own typed error, and is tried again on its
 * next request.
 */
export class VaultRegistry<T> {
  private readonly opened = new Map<string, Opened<T>>();
  private readonly opening = new Map<string, Promise<Opened<T>>>();
  /** Why a vault did not open last time it was asked for (vault_list). */
  private readonly failures = new Map<string, string>();
  private readonly configOf: (name: string) => Config;

  constructor(
    private readonly configPath: string,
    private readonly opts: VaultRegistryOptions<T>,
  ) {
    this.configOf = opts.configOf ?? ((name) => loadConfig({ vaultName: name, env: { ...process.env, INDX_CONFIG: configPath } }));
  }

  /** The configured names, sorted. */
  names(): string[] {
    return [...namedVaults(this.configPath).keys()].sort();
  }

  /** The vault named `name`, opened if need be; not_found for a name the config file does not hold. */
  async get(name: string): Promise<OpenedVault<T>> {
    const entry = VAULT_NAME.test(name) ? namedVaults(this.configPath).get(name) : undefined;
    const known = this.opened.get(name);
    if (known && !(entry && sameTable(known, entry))) await this.retire(name, known);
    if (!entry) throw new IndxError("not_found", "No such vault.");
    // The folder gone under a running server: its operations answer vault_missing (src/ops/invoke.ts).
    if (known && this.opened.get(name) === known) return known;
    const pending = this.opening.get(name) ?? this.open(name, entry);
    this.opening.set(name, pending);
    try {
      return await pending;
    } finally {
      this.opening.delete(name);
    }
  }

  /**
   * Takes out of service every opened vault whose table is gone from the config file or names
   * another folder or data folder now: its watcher stops and its index closes without waiting
   * for a request (the server calls this on a timer).
   */
  async reconcile(): Promise<void> {
    if (this.opened.size === 0 && this.failures.size === 0) return;
    const tables = namedVaults(this.configPath);
    for (const name of this.failures.keys()) if (!tables.has(name)) this.failures.delete(name);
    for (const [name, known] of [...this.opened]) {
      const entry = tables.get(name);
      if (!entry || !sameTable(known, entry)) await this.retire(name, known);
    }
  }

  /** A named vault's state for vault_list: open (with its note count), why it failed, or not opened yet. */
  stateOf(name: string): VaultState {
    const known = this.opened.get(name);
    if (known) return appState(known.app);
    // A folder missing now is said before this is asked (vault-directory.ts); one missing at the
    // last request and back since is a vault not opened yet.
    const failed = this.failures.get(name);
    return failed && failed !== "vault_missing" ? { state: "error", error: failed } : { state: "not_opened" };
  }

  private async retire(name: string, known: Opened<T>): Promise<void> {
    if (this.opened.get(name) !== known) return;
    this.opened.delete(name);
    if (!known.lent) await this.opts.retire(known);
  }

  private async open(name: string, entry: { path: string; data_dir?: string }): Promise<Opened<T>> {
    let app: App | null = null;
    const table = { path: entry.path, dataDir: entry.data_dir };
    try {
      const vault = Vault.open(this.configOf(name));
      const lent = this.opts.lend?.(vault);
      let opened: Opened<T>;
      if (lent) opened = { ...lent, ...table, lent: true };
      else {
        app = new App(vault);
        opened = { app, served: await this.opts.serve(app, name), ...table, lent: false };
      }
      this.opened.set(name, opened);
      this.failures.delete(name);
      return opened;
    } catch (err) {
      app?.close();
      const e = toIndxError(err);
      // A missing folder says vault_missing, by the vault's name only (docs/contracts.md).
      const failure =
        e.code === "not_found"
          ? new IndxError("vault_missing", `The vault folder of ${name} is gone: deleted, renamed or unmounted. indx answers again once it is back.`, {
              vault: name,
            })
          : e;
      this.failures.set(name, failure.code);
      throw failure;
    }
  }

  /** The named vaults in service with their own App (the default vault's lent one is left out). */
  entries(): [string, OpenedVault<T>][] {
    return [...this.opened].filter(([, v]) => !v.lent);
  }

  /** Every opened vault, to stop them with the server. */
  all(): OpenedVault<T>[] {
    return [...this.opened.values()].filter((v) => !v.lent);
  }
}

function sameTable(known: { path: string; dataDir: string | undefined }, entry: { path: string; data_dir?: string }): boolean {
  return known.path === entry.path && known.dataDir === entry.data_dir;
}
