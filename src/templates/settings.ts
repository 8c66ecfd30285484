import { existsSync, readFileSync, statSync } from "node:fs";
import { readObsidianJson } from "../vault/obsidian-app.ts";
import type { Vault } from "../vault/vault.ts";
import { decodeUtf8, notUtf8 } from "../writes/encoding.ts";

/** The core Templates plugin's settings (`.obsidian/templates.json`), with Obsidian's defaults. */
export interface TemplateSettings {
  /** The templates folder, or null when none is set. */
  folder: string | null;
  dateFormat: string;
  timeFormat: string;
}

const text = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : null);

export function readTemplateSettings(vaultRoot: string): TemplateSettings {
  const raw = readObsidianJson(vaultRoot, "templates.json");
  const folder = text(raw.folder)?.replace(/^\/+|\/+$/g, "") || null;
  return { folder, dateFormat: text(raw.dateFormat) ?? "YYYY-MM-DD", timeFormat: text(raw.timeFormat) ?? "HH:mm" };
}

export interface Template {
  path: string;
  text: string;
}

/**
 * A template named as Obsidian's settings and users name them: a vault path with or without
 * `.md` ("Templates/Daily"), or a name inside the templates folder ("Daily"). The folder is tried
 * first for a bare name, so "Daily" means "Templates/Daily.md" when both exist.
 */
export function findTemplate(vault: Vault, name: string, folder: string | null): Template | null {
  const trimmed = name.trim().replace(/^\/+/, "");
  const bases = folder && !trimmed.startsWith(`${folder}/`) ? [`${folder}/${trimmed}`, trimmed] : [trimmed];
  for (const base of bases) {
    for (const candidate of /\.md$/i.test(base) ? [base] : [`${base}.md`, base]) {
      const path = vault.safePath(candidate, "template");
      const abs = vault.abs(path);
      if (!existsSync(abs) || !statSync(abs).isFile()) continue;
      const decoded = decodeUtf8(readFileSync(abs));
      if (decoded === null) throw notUtf8(path);
      return { path, text: decoded };
    }
  }
  return null;
}
