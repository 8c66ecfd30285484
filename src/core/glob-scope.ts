/**
 * Why a path glob reaches outside the vault, or null. Globs match vault-relative paths, which never
 * hold a `..` segment, a home folder or a drive: such a glob matches nothing, silently, and a user
 * who wrote `ai.deny_globs = ["../Private/**"]` believes something is kept from the model that is
 * not (docs/decisions.md, "Globs that climb out of the vault"). Checked where a glob is compiled
 * (src/vault/glob.ts) and where a glob key of the configuration is read or set (src/config/keys.ts).
 */
export function globScopeProblem(glob: string): string | null {
  if (/^~(\/|$)/.test(glob)) return "starts at a home folder; globs are relative to the vault";
  if (/^[A-Za-z]:[\\/]/.test(glob) || glob.startsWith("//") || glob.startsWith("\\\\")) return "is an absolute path; globs are relative to the vault";
  // A `..` between separators, brace alternatives included (`{..,x}/**`): it climbs out of the vault.
  if (glob.split(/[/{},]/).includes("..")) return "climbs out of the vault with `..`; globs are relative to the vault";
  return null;
}
