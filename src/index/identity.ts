import { etagOf } from "../core/hash.ts";
import { CHUNK_MAX_CHARS } from "../markdown/chunks.ts";
import type { Vault } from "../vault/vault.ts";
import { SCHEMA_VERSION } from "./schema.ts";
import type { IndexIdentity } from "./store.ts";

/**
 * What an index must have been built for to be used: this vault, this schema, these indexing
 * settings. Apart from the indexer, so that opening an index for a read loads no parser.
 */
export function indexIdentity(vault: Vault): IndexIdentity {
  const settings = {
    schema: SCHEMA_VERSION,
    exclude: vault.config.list("index.exclude"),
    maxNoteBytes: vault.config.int("index.max_note_bytes"),
    chunkMaxChars: CHUNK_MAX_CHARS,
  };
  return { vaultId: vault.id, configFingerprint: etagOf(JSON.stringify(settings)) };
}
