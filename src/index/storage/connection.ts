import { etagOf } from "../../core/hash.ts";
import { CHUNK_MAX_CHARS } from "../../markdown/chunks.ts";
import type { Vault } from "../../vault/vault.ts";
import { SCHEMA_VERSION } from "./schema.ts";
import { type IndexIdentity, IndexStore } from "./store.ts";

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

/** What an index was built for: this vault, with these settings; another identity means a rebuild. */
export function indexIdentity(vault: Vault): IndexIdentity {
  const settings = {
    schema: SCHEMA_VERSION,
    exclude: vault.config.list("index.exclude"),
    maxNoteBytes: vault.config.int("index.max_note_bytes"),
    chunkMaxChars: CHUNK_MAX_CHARS,
    documents: vault.config.list("index.documents"),
    maxDocumentBytes: vault.config.int("index.max_document_bytes"),
    maxDocumentPages: vault.config.int("index.max_document_pages"),
  };
  return { vaultId: vault.id, configFingerprint: etagOf(JSON.stringify(settings)) };
}
