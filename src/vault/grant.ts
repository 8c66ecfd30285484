import { type Grant, type GrantSpec, isRestricting, validateGrantSpec } from "../ops/grant.ts";
import { globToRegExp } from "./glob.ts";
import { normalizeVaultPath } from "./paths.ts";

/**
 * A grant spec as the predicate one call applies (docs/permissions.md), or null when it narrows
 * nothing. The one place the meaning of a grant is decided, for tokens today and OAuth grants
 * later:
 * - deny wins over everything, and matches regardless of case (a case-insensitive disk must not
 *   open `projects/secret/` to a token denied `Projects/Secret/**`);
 * - read and write globs match as written (case-sensitive), so they never grant more than named;
 * - a path the token may write it may read; no read globs: every path not denied is readable;
 * - no write globs: what the token may read it may write (its scopes still decide whether it
 *   writes at all).
 * Paths are tested in their normal form, and a note's path also without `.md` and with it, so
 * `Personal/Diary` and `Personal/Diary.md` are the same note to every rule.
 */
export function compileGrant(spec: GrantSpec | null | undefined): Grant | null {
  if (!isRestricting(spec)) return null;
  const clean = validateGrantSpec(spec);
  const key = JSON.stringify([clean.read ?? null, clean.write ?? null, clean.deny ?? []]);
  const hit = compiled.get(key);
  if (hit) return hit;
  const grant = build(clean, key);
  compiled.set(key, grant);
  if (compiled.size > COMPILED_LIMIT) {
    const oldest = compiled.keys().next();
    if (!oldest.done) compiled.delete(oldest.value);
  }
  return grant;
}

/**
 * A path already in normal form (as the index stores them): no leading `/` or `~`, no `\\`, `%`
 * or NUL, no empty, `.` or `..` segment. normalizeVaultPath would return it unchanged.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the NUL is what it rules out.
const PLAIN = /^(?![/~])(?!.*(?:^|\/)\.{1,2}(?:\/|$))(?!.*\/\/)[^\\%\u0000]+(?<!\/)$/;

/** Each request of a granted token compiles its grant: the same globs get the same predicate. */
const compiled = new Map<string, Grant>();
const COMPILED_LIMIT = 64;

function build(clean: GrantSpec, key: string): Grant {
  const test = (globs: readonly string[] | undefined, nocase: boolean) => {
    const res = (globs ?? []).map((g) => globToRegExp(g, { nocase }));
    return (path: string) => res.some((re) => re.test(path));
  };
  const denied = test(clean.deny, true);
  const read = clean.read === undefined ? null : test(clean.read, false);
  const write = clean.write === undefined ? null : test(clean.write, false);
  const forms = (path: string): string[] => {
    let p: string;
    if (PLAIN.test(path)) p = path;
    else
      try {
        p = normalizeVaultPath(path);
      } catch {
        // Not a vault path at all (the operation refuses it itself): nothing can match it.
        return [path];
      }
    // A chunk id (`Notes/A.md#3`) is its note's path and an index: the note decides.
    const file = p.includes("#") ? (p.split("#")[0] ?? p) : p;
    const out = file.endsWith(".md") ? [file, file.slice(0, -3)] : [file, `${file}.md`];
    if (file !== p) out.push(p);
    return out;
  };
  const isDenied = (all: string[]) => all.some(denied);
  const canWriteForms = (all: string[]) => !isDenied(all) && (write ? all.some(write) : canReadForms(all, false));
  const canReadForms = (all: string[], viaWrite = true): boolean => {
    if (isDenied(all)) return false;
    if (read === null || all.some(read)) return true;
    return viaWrite && write !== null && all.some(write);
  };
  return {
    spec: clean,
    key,
    canRead: (path) => canReadForms(forms(path)),
    canWrite: (path) => canWriteForms(forms(path)),
  };
}
