/** Reading the files a plan edits. */
import { readFileSync } from "node:fs";
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
