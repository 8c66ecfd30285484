import { existsSync } from "node:fs";
import { posix } from "node:path";
import { readObsidianApp } from "../vault/obsidian-app.ts";
import type { Vault } from "../vault/vault.ts";

export const TRASH_FOLDER = ".trash";

/**
 * Where a deleted file goes: Obsidian's `.trash/` (flat, "Name 1.md" on a name clash, as
 * Obsidian does), or nowhere (null) when the vault's trashOption is "none".
 */
export function trashDestination(vault: Vault, path: string): string | null {
  if (readObsidianApp(vault.root).trashOption === "none") return null;
  const ext = posix.extname(path);
  const stem = posix.basename(path, ext);
  for (let n = 0; ; n++) {
    const name = n === 0 ? `${stem}${ext}` : `${stem} ${n}${ext}`;
    const abs = vault.abs(posix.join(TRASH_FOLDER, name));
    if (!existsSync(abs)) return abs;
  }
}
