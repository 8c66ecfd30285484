import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The settings of `.obsidian/app.json` that change what indx writes. */
export interface ObsidianAppSettings {
  trashOption: "system" | "local" | "none";
  newLinkFormat: "shortest" | "relative" | "absolute";
  useMarkdownLinks: boolean;
}

/**
 * Reads the vault's Obsidian settings; a missing or malformed file means Obsidian's defaults,
 * except that indx has no OS trash to use, so "system" (Obsidian's default) lands in `.trash/`.
 */
export function readObsidianApp(vaultRoot: string): ObsidianAppSettings {
  let raw: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(readFileSync(join(vaultRoot, ".obsidian", "app.json"), "utf8"));
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) raw = parsed;
  } catch {}
  const pick = <T extends string>(value: unknown, allowed: readonly T[], fallback: T): T => (allowed.includes(value as T) ? (value as T) : fallback);
  return {
    trashOption: pick(raw.trashOption, ["system", "local", "none"] as const, "system"),
    newLinkFormat: pick(raw.newLinkFormat, ["shortest", "relative", "absolute"] as const, "shortest"),
    useMarkdownLinks: raw.useMarkdownLinks === true,
  };
}
