import { isTagChar } from "../markdown/tags.ts";

/** A tag body as Obsidian accepts it (no '#'): tag characters only, not all digits, no empty `/` segment. */
export function isValidTag(tag: string): boolean {
  if (tag === "" || /^\d+$/.test(tag) || tag.split("/").includes("")) return false;
  for (let i = 0; i < tag.length; i++) if (!isTagChar(tag.charCodeAt(i))) return false;
  return true;
}
