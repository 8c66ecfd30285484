/**
 * Obsidian link resolution: a re-implementation of `MetadataCache.getFirstLinkpathDest`
 * (docs/obsidian.md, Link resolution). Pure and incremental: the indexer adds and removes
 * paths as files change and re-resolves only links whose `linkKey` a changed file can satisfy.
 *
 * Deliberate choices, each invisible unless a vault is ambiguous:
 * - Ties (same group, same path length) are broken by code-unit path order. Obsidian keeps vault
 *   load order there, which is effectively unspecified; a stable answer beats mimicking noise.
 * - The newer-build shortcut "bare name with exactly one candidate → that candidate" is not
 *   implemented: a bare name is always a suffix of every candidate (they share the file name), so
 *   the general rules already return that candidate first. Leaving it out keeps one code path.
 * - `../` above the vault root stays at the root (Obsidian's behaviour there is unverified).
 */
export class LinkResolver {
  /**
   * Lowercased file name (with extension) → the one file of that name, or the files of that name.
   * Most names are unique: a plain string for those keeps a vault's resolver at a third of the
   * memory a bucket each took (100,000 files: 40 MB, held on two threads during a build).
   */
  private readonly byName = new Map<string, string | Bucket>();
  /**
   * How many of its files have a name without a dot. A link whose name has no dot can match only
   * such a file as written, and otherwise only with ".md" added: with none, the first lookup is
   * skipped (most links are to notes by bare name, and most vaults have no such file).
   */
  private dotless = 0;

  constructor(paths: Iterable<string>) {
    for (const p of paths) this.add(p);
  }

  add(path: string): void {
    const lower = fold(path);
    const name = baseName(lower);
    const entry = this.byName.get(name);
    if (entry === undefined) {
      this.byName.set(name, path);
      if (!name.includes(".")) this.dotless++;
      return;
    }
    if (entry === path) return;
    const bucket = typeof entry === "string" ? { lowerByPath: new Map([[entry, fold(entry)]]), sorted: null } : entry;
    if (bucket.lowerByPath.has(path)) return;
    bucket.lowerByPath.set(path, lower);
    bucket.sorted = null;
    this.byName.set(name, bucket);
    if (!name.includes(".")) this.dotless++;
  }

  remove(path: string): void {
    const name = baseName(fold(path));
    const entry = this.byName.get(name);
    if (entry === undefined) return;
    if (typeof entry === "string") {
      if (entry !== path) return;
      this.byName.delete(name);
    } else {
      if (!entry.lowerByPath.delete(path)) return;
      entry.sorted = null;
      if (entry.lowerByPath.size === 0) this.byName.delete(name);
    }
    if (!name.includes(".")) this.dotless--;
  }

  /** Every path it knows, in no particular order (resolution does not depend on it). */
  *paths(): Generator<string> {
    for (const entry of this.byName.values()) {
      if (typeof entry === "string") yield entry;
      else yield* entry.lowerByPath.keys();
    }
  }

  /** Obsidian's getFirstLinkpathDest(linkpath, sourcePath): returns the resolved path or null. */
  resolve(linkpath: string, sourcePath: string): string | null {
    return this.candidates(linkpath, sourcePath)[0] ?? null;
  }

  /** All candidates in Obsidian's order (for ambiguity reporting). */
  candidates(linkpath: string, sourcePath: string): string[] {
    // `[[#Heading]]` has an empty linkpath and points into the note itself.
    if (linkpath === "") return sourcePath ? [sourcePath] : [];
    const first = this.dotless === 0 && !baseName(linkpath).includes(".") ? [] : this.destinations(linkpath, sourcePath);
    // A bare name that matches nothing is retried as a note: `[[Note]]` finds `Note.md`.
    return first.length ? first : this.destinations(`${linkpath}.md`, sourcePath);
  }

  private destinations(linkpath: string, sourcePath: string): string[] {
    let n = fold(linkpath);
    const entry = this.byName.get(baseName(n));
    if (entry === undefined) return [];
    // A bare name and one file of that name: every rule below returns that file. Most links are
    // this, so a first build resolves them without sorting or folding the source's folder.
    if (!n.includes("/")) {
      if (typeof entry === "string") return [entry];
      if (entry.lowerByPath.size === 1) {
        const only = entry.lowerByPath.keys().next();
        if (!only.done) return [only.value];
      }
    }
    const cands = typeof entry === "string" ? [candidate(entry, fold(entry))] : sortedCandidates(entry);
    const dir = dirName(fold(sourcePath));

    if (n.startsWith("./") || n.startsWith("../")) {
      const target = resolveRelative(n, dir);
      const hit = cands.find((c) => c.lower === target);
      return hit ? [hit.path] : [];
    }

    if (n.startsWith("/")) n = n.slice(1);
    const exact = cands.find((c) => c.lower === n);
    if (exact) return [exact.path];
    if (linkpath.startsWith("/")) return [];

    // Obsidian's tests are plain string tests: the suffix is not segment-aligned (`older/Note`
    // matches `bolder/Note.md`) and "near" has no trailing slash (`Projects2/` is near `Projects/`).
    const near: string[] = [];
    const far: string[] = [];
    for (const { path, lower } of cands) {
      if (!lower.endsWith(n)) continue;
      (lower.startsWith(dir) ? near : far).push(path);
    }
    return [...near, ...far];
  }
}

interface Candidate {
  path: string;
  lower: string;
  /** Obsidian ranks by path length; NFC so a decomposed file name does not count as longer. */
  length: number;
}

/** Files that share a name. */
interface Bucket {
  lowerByPath: Map<string, string>;
  /** Candidates in final group order (path length, then path); rebuilt lazily after a change. */
  sorted: Candidate[] | null;
}

/** Sorting once per bucket keeps common names (index.md, README.md) cheap to resolve many times. */
function sortedCandidates(bucket: Bucket): Candidate[] {
  bucket.sorted ??= [...bucket.lowerByPath]
    .map(([path, lower]) => candidate(path, lower))
    .sort((a, b) => a.length - b.length || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return bucket.sorted;
}

function candidate(path: string, lower: string): Candidate {
  return { path, lower, length: path.normalize("NFC").length };
}

/**
 * The lowercased file name a link names. A link can only resolve to a file of exactly that name or
 * that name + ".md" (the retry), so the index stores this key and re-resolves by it.
 */
export function linkKey(linkpath: string): string {
  return baseName(fold(linkpath));
}

/** The link keys a file can satisfy: links whose key is one of these may change target when it appears or goes. */
export function keysForFile(path: string): string[] {
  const name = baseName(fold(path));
  return name.endsWith(".md") ? [name, name.slice(0, -3)] : [name];
}

/** Obsidian compares NFC-normalised, lowercased strings everywhere. */
function fold(s: string): string {
  return s.normalize("NFC").toLowerCase();
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function dirName(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

/**
 * Only the leading `./` / `../` run is interpreted: the RE notes describe prefix handling (hence the
 * `./../` special case), so a dot segment later in the link stays literal and matches no file.
 */
function resolveRelative(n: string, dir: string): string {
  let rest = n.startsWith("./../") ? n.slice(2) : n;
  const parts = dir === "" ? [] : dir.split("/");
  if (rest.startsWith("./")) rest = rest.slice(2);
  while (rest.startsWith("../")) {
    parts.pop();
    rest = rest.slice(3);
  }
  return [...parts, rest].join("/");
}
