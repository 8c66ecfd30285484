import { existsSync, statSync } from "node:fs";
import { loadConfig, namedVaults, VAULT_NAME } from "../config/load.ts";
import { IndxError } from "../core/errors.ts";
import { EventHub } from "../events/hub.ts";
import { EventLog } from "../events/log.ts";
import type { NamedVaultStores } from "../oauth/server.ts";
import { OAuthStore } from "../oauth/store.ts";
import { Vault } from "../vault/vault.ts";

/**
 * The OAuth state of the named vaults of one server (docs/decisions.md, "OAuth for named
 * vaults"): each vault's grants in the oauth.json of its own data folder, its audit events in its
 * own events.log. The config file is read on each lookup, like the vaults' routes, so a vault
 * added while serving can be authorized without a restart.
 */
export class NamedVaultOAuth implements NamedVaultStores {
  private readonly stores = new Map<string, OAuthStore>();
  private readonly hubs = new Map<string, EventHub>();
  private readonly dirs = new Map<string, { stamp: string; root: string; dir: string }>();

  constructor(private readonly configPath: string) {}

  has(name: string): boolean {
    return VAULT_NAME.test(name) && namedVaults(this.configPath).has(name);
  }

  storeOf(name: string): OAuthStore {
    const dir = this.dataDirOf(name);
    let store = this.stores.get(dir);
    if (!store) this.stores.set(dir, (store = new OAuthStore(dir)));
    return store;
  }

  all(): OAuthStore[] {
    return [...namedVaults(this.configPath).keys()].flatMap((name) => {
      try {
        return [this.storeOf(name)];
      } catch {
        // A vault that cannot open holds no grant a refresh could use now.
        return [];
      }
    });
  }

  eventsOf(name: string): EventHub {
    const dir = this.dataDirOf(name);
    let hub = this.hubs.get(dir);
    if (!hub) this.hubs.set(dir, (hub = new EventHub(new EventLog(dir))));
    return hub;
  }

  /**
   * The vault's data folder, as its App finds it (src/app/vaults.ts); a vault that cannot open says
   * so by name only. Kept while the config file and the vault folder are unchanged: every OAuth
   * request on a named vault asks, and loading the config each time would cost a parse per request.
   */
  private dataDirOf(name: string): string {
    const stamp = stampOf(this.configPath);
    const known = this.dirs.get(name);
    if (known && known.stamp === stamp && existsSync(known.root)) return known.dir;
    if (!this.has(name)) throw new IndxError("not_found", "No such vault.");
    try {
      const vault = Vault.open(loadConfig({ vaultName: name, env: { ...process.env, INDX_CONFIG: this.configPath } }));
      this.dirs.set(name, { stamp, root: vault.root, dir: vault.dataDir });
      return vault.dataDir;
    } catch {
      throw new IndxError("vault_missing", `The vault folder of ${name} is gone: deleted, renamed or unmounted. indx answers again once it is back.`, {
        vault: name,
      });
    }
  }
}

function stampOf(path: string): string {
  try {
    const st = statSync(path);
    return `${st.mtimeMs}:${st.size}:${st.ino}`;
  } catch {
    return "";
  }
}
