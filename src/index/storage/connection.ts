import { etagOf } from "../../core/hash.ts";
import { CHUNK_MAX_CHARS } from "../../markdown/chunks.ts";
import type { Grant } from "../../ops/grant.ts";
import { readObsidianApp } from "../../vault/obsidian-app.ts";
import type { Vault } from "../../vault/vault.ts";
import { SCHEMA_VERSION } from "./schema.ts";
import { type IndexIdentity, IndexStore } from "./store.ts";

/**
 * The index of one vault as one connection: opened on first use, and opened again when the file
 * on disk is no longer the one it holds (deleted, or rebuilt from scratch by another connection).
 */
export class IndexConnection {
  private store: IndexStore | null = null;
  /** One read connection per folder grant in use, by its key; the least recently used goes first. */
  private readonly scopedStores = new Map<string, IndexStore>();

  constructor(private readonly vault: Vault) {}

  /** The open index; throws index_missing / index_incompatible with the command that fixes it. */
  open(): IndexStore {
    if (this.store && !this.store.isCurrent()) this.release();
    this.store ??= IndexStore.openExisting(this.vault.indexPath, indexIdentity(this.vault));
    return this.store;
  }

  /**
   * The index as a folder grant sees it (docs/permissions.md): a connection of its own whose
   * tables show only the files the grant may read (src/index/storage/visibility.ts), brought up to
   * date with the index on every call.
   */
  openFor(grant: Grant): IndexStore {
    this.open();
    let store = this.scopedStores.get(grant.key);
    if (store && !store.isCurrent()) {
      store.close();
      store = undefined;
    }
    if (store) this.scopedStores.delete(grant.key);
    store ??= IndexStore.openScoped(this.vault.indexPath, indexIdentity(this.vault), grant.canRead);
    this.scopedStores.set(grant.key, store);
    for (const [key, old] of this.scopedStores) {
      if (this.scopedStores.size <= SCOPED_CONNECTIONS) break;
      old.close();
      this.scopedStores.delete(key);
    }
    store.refreshVisibility();
    return store;
  }

  release(): void {
    this.store?.close();
    this.store = null;
    for (const s of this.scopedStores.values()) s.close();
    this.scopedStores.clear();
  }
}

/** Grants whose connections stay open at once: a server rarely has more tokens with different grants in use. */
const SCOPED_CONNECTIONS = 8;

/** What an index was built for: this vault, with these settings; another identity means a rebuild. */
export function indexIdentity(vault: Vault): IndexIdentity {
  const settings = {
    schema: SCHEMA_VERSION,
    exclude: vault.config.list("index.exclude"),
    // Obsidian's excluded files, when they exclude (index.obsidian_excluded): a change rebuilds the index.
    ...(vault.config.get<boolean>("index.obsidian_excluded") === true ? { obsidianExcluded: readObsidianApp(vault.root).userIgnoreFilters } : {}),
    maxNoteBytes: vault.config.int("index.max_note_bytes"),
    chunkMaxChars: CHUNK_MAX_CHARS,
    documents: vault.config.list("index.documents"),
    maxDocumentBytes: vault.config.int("index.max_document_bytes"),
    maxDocumentPages: vault.config.int("index.max_document_pages"),
  };
  return { vaultId: vault.id, configFingerprint: etagOf(JSON.stringify(settings)) };
}
