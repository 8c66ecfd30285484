/**
 * The vault as the index holds it, shaped for Bases: every file as an Entry, loaded in bulk and
 * reused by every query until the index (or types.json, or the excluded files) changes. After a
 * change only the files whose rows changed are read again (docs/decisions.md, "Bases execution").
 */
import { statSync } from "node:fs";
import { IndxError } from "../core/errors.ts";
import { frontmatterOf, tagsOf } from "../index/storage/json-columns.ts";
import type { BaseFileRow, LinkRow } from "../index/storage/queries/bases.ts";
import type { IndexStore } from "../index/storage/store.ts";
import { LinkResolver } from "../vault/link-resolver.ts";
import { ignoredBy, readObsidianApp } from "../vault/obsidian-app.ts";
import type { Vault } from "../vault/vault.ts";
import { startOfDay } from "./dates.ts";
import type { Entry, World } from "./entry.ts";
import type { Env } from "./expr/scope.ts";
import { candidateCondition, type FilterPlan } from "./prefilter.ts";
import { type DeclaredTypes, effectiveType, inferPropertyType, readDeclaredTypes, typedValue } from "./properties.ts";
import { LinkValue, type Value } from "./values.ts";

/** What the index holds of one file's content, kept from snapshot to snapshot while its stamp stays. */
interface FileData {
  stamp: string;
  /** The frontmatter as a JSON object: the properties' values as written. */
  frontmatterJson: string | null;
  tagsJson: string | null;
}

/** Whether a property may hold a link, whose target depends on the other files. */
const mayLink = (d: FileData) => d.frontmatterJson?.includes("[[") ?? false;

const EMPTY: readonly LinkValue[] = [];

class IndexEntry implements Entry {
  private parsedTags: string[] | null = null;

  constructor(
    private readonly snapshot: IndexSnapshot,
    private readonly file: BaseFileRow,
    readonly data: FileData,
    /** Typed properties carried over from the last snapshot when they cannot have changed. */
    private typed: Record<string, Value> | null,
    private ctime: number | null,
  ) {}

  get id(): number {
    return this.file.id;
  }
  get path(): string {
    return this.file.path;
  }
  get kind() {
    return this.file.kind;
  }
  get size(): number {
    return this.file.size;
  }
  get mtimeMs(): number {
    return this.file.mtimeMs;
  }

  get properties(): Readonly<Record<string, Value>> {
    if (this.typed) return this.typed;
    const out: Record<string, Value> = {};
    const resolve = (linkpath: string) => this.snapshot.resolve(linkpath, this.path);
    const raw = frontmatterOf(this.data) ?? {};
    for (const [key, value] of Object.entries(raw)) out[key] = typedValue(value, effectiveType(key, inferPropertyType(value), this.snapshot.declared), resolve);
    this.typed = out;
    return out;
  }

  /** The typed properties if already computed (for the next snapshot to reuse). */
  typedSoFar(): Record<string, Value> | null {
    return this.typed;
  }

  ctimeMs(): number {
    if (this.ctime === null) this.ctime = this.snapshot.creationTime(this.path) ?? this.mtimeMs;
    return this.ctime;
  }

  ctimeSoFar(): number | null {
    return this.ctime;
  }

  tags(): readonly string[] {
    this.parsedTags ??= tagsOf(this.data);
    return this.parsedTags;
  }

  links(): readonly LinkValue[] {
    return this.snapshot.linkGraph().out.get(this.id) ?? EMPTY;
  }

  embeds(): readonly LinkValue[] {
    return this.snapshot.linkGraph().embeds.get(this.id) ?? EMPTY;
  }

  backlinks(): readonly LinkValue[] {
    return this.snapshot.linkGraph().back.get(this.path) ?? EMPTY;
  }
}

interface LinkGraph {
  out: Map<number, LinkValue[]>;
  embeds: Map<number, LinkValue[]>;
  /** Target path → links to the files that link to it (one per source). */
  back: Map<string, LinkValue[]>;
}

/** Whether the index narrows a query's candidates: see IndexSnapshot.candidatesFor. */
export type Prefilter = "selective" | "always" | "off";

/** The prefilter narrows by parts of a filter that name at most 1/SELECTIVE_SHARE of the files. */
const SELECTIVE_SHARE = 8;

/** Prefilter answers a snapshot keeps. */
const NARROWED_CACHE = 64;

/** Past this share of changed files, one bulk read is cheaper than reading them one by one. */
const BULK_RELOAD_SHARE = 0.2;

export class IndexSnapshot implements World {
  /** Every file a base can list: all indexed files minus Obsidian's excluded files. */
  readonly candidates: readonly IndexEntry[];
  private readonly byPath = new Map<string, IndexEntry>();
  private readonly byId = new Map<number, IndexEntry>();
  private resolver: LinkResolver | null = null;
  private graph: LinkGraph | null = null;
  private readonly narrowed = new Map<string, ReadonlySet<number> | null>();

  constructor(
    private readonly store: IndexStore,
    private readonly vault: Vault,
    readonly declared: DeclaredTypes,
    readonly declaredText: string,
    excluded: (path: string) => boolean,
    previous: IndexSnapshot | null,
  ) {
    const files = store.bases.files();
    const data = loadFileData(store, files, previous);
    const samePaths = previous !== null && previous.byPath.size === files.length && files.every((f) => previous.byPath.has(f.path));
    const sameTypes = previous !== null && previous.declaredText === declaredText;
    if (samePaths) this.resolver = previous.resolver;
    const candidates: IndexEntry[] = [];
    for (const f of files) {
      const d = data.get(f.id);
      if (d === undefined) throw new IndxError("internal", `No base data was loaded for ${f.path}`);
      const before = previous?.byId.get(f.id);
      const kept = before !== undefined && before.data === d;
      const typed = kept && sameTypes && (samePaths || !mayLink(d)) ? before.typedSoFar() : null;
      const ctime = kept && before.mtimeMs === f.mtimeMs ? before.ctimeSoFar() : null;
      const entry = new IndexEntry(this, f, d, typed, ctime);
      this.byPath.set(f.path, entry);
      this.byId.set(f.id, entry);
      if (!excluded(f.path)) candidates.push(entry);
    }
    this.candidates = candidates;
  }

  entry(path: string): Entry | null {
    return this.byPath.get(path) ?? null;
  }

  /**
   * The candidates the filters could keep, as far as the index can tell (prefilter.ts); the
   * filters still run on each. "selective" narrows only by parts of the filters that name at most
   * an eighth of the files: past that, reading the index costs more than running the filter.
   */
  candidatesFor(plans: readonly FilterPlan[], env: Env, prefilter: Prefilter = "selective"): readonly Entry[] {
    const ids = this.narrowedIds(plans, env, prefilter);
    return ids ? this.candidates.filter((e) => ids.has(e.id)) : this.candidates;
  }

  /** The ids of the files the filters could keep (excluded files included), or null when the index narrows nothing. */
  narrowedIds(plans: readonly FilterPlan[], env: Env, prefilter: Prefilter = "selective"): ReadonlySet<number> | null {
    if (prefilter === "off") return null;
    const condition = candidateCondition(plans, { env, declared: this.declared });
    if (condition.kind === "all") return null;
    if (condition.kind === "none") return new Set();
    const limit = prefilter === "always" ? Number.MAX_SAFE_INTEGER : Math.floor(this.candidates.length / SELECTIVE_SHARE);
    // The index stands still while this snapshot lives: a query asked again (a warm server, a
    // subscription's recheck) reuses the answer instead of reading the index again.
    const key = `${limit}:${JSON.stringify(condition)}`;
    const hit = this.narrowed.get(key);
    if (hit !== undefined) return hit;
    if (this.narrowed.size >= NARROWED_CACHE) this.narrowed.clear();
    const ids = this.store.bases.candidateIds(condition, limit);
    this.narrowed.set(key, ids);
    return ids;
  }

  resolve(linkpath: string, from: string): string | null {
    this.resolver ??= new LinkResolver(this.byPath.keys());
    return this.resolver.resolve(linkpath, from);
  }

  creationTime(path: string): number | null {
    try {
      const st = statSync(this.vault.abs(path));
      return Math.floor(st.birthtimeMs || st.ctimeMs);
    } catch {
      return null;
    }
  }

  /** Links out of every file and back to every file, loaded once when a query first needs them. */
  linkGraph(): LinkGraph {
    if (this.graph) return this.graph;
    const pathById = new Map<number, string>();
    for (const e of this.byPath.values()) pathById.set(e.id, e.path);
    const graph: LinkGraph = { out: new Map(), embeds: new Map(), back: new Map() };
    const backSources = new Map<string, Set<string>>();
    for (const l of this.store.bases.links()) addLink(graph, backSources, l, pathById.get(l.srcId));
    for (const [target, sources] of backSources)
      graph.back.set(
        target,
        [...sources].map((s) => new LinkValue(s, s, null)),
      );
    this.graph = graph;
    return graph;
  }

  /** The content of the file with this id as the snapshot holds it, if its stamp is still `stamp`. */
  dataOf(id: number, stamp: string): FileData | null {
    const d = this.byId.get(id)?.data;
    return d?.stamp === stamp ? d : null;
  }
}

/** Each file's content: kept from `previous` where the stamp is the same, read from the index otherwise. */
function loadFileData(store: IndexStore, files: readonly BaseFileRow[], previous: IndexSnapshot | null): Map<number, FileData> {
  const data = new Map<number, FileData>();
  const stale: BaseFileRow[] = [];
  for (const f of files) {
    const kept = previous?.dataOf(f.id, f.stamp);
    if (kept) data.set(f.id, kept);
    else stale.push(f);
  }
  if (stale.length === 0) return data;
  const bulk = stale.length > files.length * BULK_RELOAD_SHARE;
  const ids = bulk ? [] : stale.map((f) => f.id);
  const content = new Map((bulk ? store.bases.content() : store.bases.contentOf(ids)).map((c) => [c.fileId, c]));
  for (const f of stale) {
    const c = content.get(f.id);
    data.set(f.id, { stamp: f.stamp, frontmatterJson: c?.frontmatterJson ?? null, tagsJson: c && c.tagsJson !== "[]" ? c.tagsJson : null });
  }
  return data;
}

function addLink(graph: LinkGraph, backSources: Map<string, Set<string>>, l: LinkRow, source: string | undefined): void {
  const link = new LinkValue(l.linkpath, l.target, l.display);
  push(graph.out, l.srcId, link);
  if (l.embed) push(graph.embeds, l.srcId, link);
  if (l.target !== null && source !== undefined) {
    let set = backSources.get(l.target);
    if (!set) backSources.set(l.target, (set = new Set()));
    set.add(source);
  }
}

function push<K>(map: Map<K, LinkValue[]>, key: K, link: LinkValue): void {
  const list = map.get(key);
  if (list) list.push(link);
  else map.set(key, [link]);
}

const cache = new WeakMap<IndexStore, { key: string; snapshot: IndexSnapshot }>();

/**
 * The snapshot of this index, reused while the index, types.json and the excluded files stay the
 * same; after a change, the next one reuses what the last one read of the unchanged files.
 */
export function snapshotOf(store: IndexStore, vault: Vault): IndexSnapshot {
  const declared = readDeclaredTypes(vault.root);
  const ignore = readObsidianApp(vault.root).userIgnoreFilters;
  const key = `${store.bases.generation()}\n${declared.text}\n${ignore.join("\n")}`;
  const hit = cache.get(store);
  if (hit && hit.key === key) return hit.snapshot;
  const snapshot = new IndexSnapshot(store, vault, declared.types, declared.text, ignoredBy(ignore), hit?.snapshot ?? null);
  cache.set(store, { key, snapshot });
  return snapshot;
}

/**
 * What a Bases result depends on besides the index and the question: types.json, the excluded
 * files and, for expressions that call now() or today(), the time (now() to the millisecond, so
 * such a result is never reused; today() to the day). Results are reused while it stays the same.
 */
export function basesResultKey(vault: Vault, expressions: string, now: number): string {
  const declared = readDeclaredTypes(vault.root).text;
  const ignore = readObsidianApp(vault.root).userIgnoreFilters.join("\n");
  const time = /\bnow\s*\(/.test(expressions) ? String(now) : /\btoday\s*\(/.test(expressions) ? String(startOfDay(now)) : "";
  return `${declared}\n${ignore}\n${time}`;
}
