/** Reading the files a plan edits, and the index queries that say which files to read. */
import { readFileSync } from "node:fs";
import type { IndexStore } from "../index/store.ts";
import type { Vault } from "../vault/vault.ts";

/** A file as the plan saw it: its bytes (for the etag) and their text. */
export interface SourceFile {
  path: string;
  bytes: Uint8Array;
  text: string;
}

/** Reads a vault file; null when it is gone (the index was behind the disk). */
export function readSource(vault: Vault, path: string): SourceFile | null {
  try {
    const bytes = readFileSync(vault.abs(path));
    return { path, bytes, text: new TextDecoder().decode(bytes) };
  } catch {
    return null;
  }
}

export function indexedPaths(index: IndexStore): string[] {
  return index.db
    .query<{ path: string }, []>("SELECT path FROM files")
    .all()
    .map((r) => r.path);
}

export function indexedCanvases(index: IndexStore): string[] {
  return index.db
    .query<{ path: string }, []>("SELECT path FROM files WHERE kind = 'canvas' ORDER BY path")
    .all()
    .map((r) => r.path);
}

/** Notes with at least one link the index resolved to `path` (including `path` itself for `[[#H]]`). */
export function linkingSources(index: IndexStore, path: string): string[] {
  return index.db
    .query<{ path: string }, [string]>("SELECT DISTINCT f.path FROM links l JOIN files f ON f.id = l.src_id WHERE l.dst_path = ? ORDER BY f.path")
    .all(path)
    .map((r) => r.path);
}

/** Notes with a resolved link whose target key is one of `keys` (links a new file of that name could capture). */
export function sourcesByTargetKey(index: IndexStore, keys: string[]): string[] {
  const out = new Set<string>();
  const q = index.db.query<{ path: string }, [string]>(
    "SELECT DISTINCT f.path FROM links l JOIN files f ON f.id = l.src_id WHERE l.target_key = ? AND l.dst_path IS NOT NULL",
  );
  for (const k of keys) for (const r of q.all(k)) out.add(r.path);
  return [...out].sort();
}
