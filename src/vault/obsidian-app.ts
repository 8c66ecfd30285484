import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The settings of `.obsidian/app.json` that change what indx writes. */
export interface ObsidianAppSettings {
  trashOption: "system" | "local" | "none";
  newLinkFormat: "shortest" | "relative" | "absolute";
  useMarkdownLinks: boolean;
  /** "Excluded files": folder or path prefixes, or /regular expressions/. */
  userIgnoreFilters: string[];
  /** Where new attachments go: "/" (vault root), "./" (beside the note), "./sub" (a folder beside the note), or a vault folder. */
  attachmentFolderPath: string;
}

/**
 * One JSON settings file of `.obsidian/` (`app.json`, `daily-notes.json`, `plugins/<id>/data.json`)
 * as an object; a missing, unreadable or non-object file is `{}`, which every reader takes as
 * Obsidian's defaults.
 */
export function readObsidianJson(vaultRoot: string, file: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(vaultRoot, ".obsidian", file), "utf8"));
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {}
  return {};
}

/**
 * Reads the vault's Obsidian settings; a missing or malformed file means Obsidian's defaults,
 * except that indx has no OS trash to use, so "system" (Obsidian's default) lands in `.trash/`.
 */
export function readObsidianApp(vaultRoot: string): ObsidianAppSettings {
  const raw = readObsidianJson(vaultRoot, "app.json");
  const pick = <T extends string>(value: unknown, allowed: readonly T[], fallback: T): T => (allowed.includes(value as T) ? (value as T) : fallback);
  return {
    trashOption: pick(raw.trashOption, ["system", "local", "none"] as const, "system"),
    newLinkFormat: pick(raw.newLinkFormat, ["shortest", "relative", "absolute"] as const, "shortest"),
    useMarkdownLinks: raw.useMarkdownLinks === true,
    userIgnoreFilters: Array.isArray(raw.userIgnoreFilters) ? raw.userIgnoreFilters.filter((f): f is string => typeof f === "string" && f !== "") : [],
    attachmentFolderPath: typeof raw.attachmentFolderPath === "string" && raw.attachmentFolderPath.trim() !== "" ? raw.attachmentFolderPath.trim() : "/",
  };
}

/**
 * Obsidian's "Excluded files" as a predicate over vault paths: a `/regex/` entry tests the path, any
 * other entry is a path prefix ("Templates/" or "Templates"). An invalid regex excludes nothing.
 */
export function ignoredBy(filters: readonly string[]): (path: string) => boolean {
  const tests = filters.map((f): ((path: string) => boolean) => {
    if (f.length > 2 && f.startsWith("/") && f.endsWith("/")) {
      try {
        const re = new RegExp(f.slice(1, -1));
        return (path) => re.test(path);
      } catch {
        return () => false;
      }
    }
    return (path) => path.startsWith(f);
  });
  return (path) => tests.some((t) => t(path));
}
