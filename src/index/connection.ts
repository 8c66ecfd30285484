import type { Vault } from "../vault/vault.ts";
import { indexIdentity } from "./identity.ts";
import { IndexStore } from "./store.ts";

/**
 * The index of one vault as one connection: opened on first use, and opened again when the file
 * on disk is no longer the one it holds (deleted, or rebuilt from scratch by another connection).
 */
export class IndexConnection {
  private store: IndexStore | null = null;

  constructor(private readonly vault: Vault) {}

  /** The open index; throws index_missing / index_incompatible with the command that fixes it. */
  open(): IndexStore {
    if (this.store && !this.store.isCurrent()) this.release();
    this.store ??= IndexStore.openExisting(this.vault.indexPath, indexIdentity(this.vault));
    return this.store;
  }

  release(): void {
    this.store?.close();
    this.store = null;
  }
}
