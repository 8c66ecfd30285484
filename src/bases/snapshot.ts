/**
 * The vault as the index holds it, shaped for Bases: every file as an Entry, loaded in bulk and
 * reused by every query until the index (or types.json, or the excluded files) changes.
 */
import { statSync } from "node:fs";
import type { BaseFileRow, LinkRow } from "../index/queries/bases.ts";
import type { IndexStore } from "../index/store.ts";
import { LinkResolver } from "../links/resolve.ts";
import { ignoredBy, readObsidianApp } from "../vault/obsidian-app.ts";
import type { FileKind } from "../vault/scan.ts";
import type { Vault } from "../vault/vault.ts";
import type { Entry, World } from "./entry.ts";
import { type DeclaredTypes, effectiveType, inferPropertyType, type PropertyType, readDeclaredTypes, typedValue } from "./properties.ts";
import { LinkValue, type Value } from "./values.ts";

interface RawProperty {
  key: string;
  type: PropertyType;
  json: string;
}

const EMPTY: readonly LinkValue[] = [];

class IndexEntry implements Entry {
  private typed: Record<string, Value> | null = null;
  private ctime: number | null = null;
  private parsedTags: string[] | null = null;

  constructor(
    private readonly snapshot: IndexSnapshot,
    readonly id: number,
    readonly path: string,
    readonly kind: FileKind,
    readonly size: number,
    readonly mtimeMs: number,
    private readonly raw: readonly RawProperty[],
    private readonly tagsJson: string | null,
  ) {}

  get properties(): Readonly<Record<string, Value>> {
    if (this.typed) return this.typed;
    const out: Record<string, Value> = {};
    const resolve = (linkpath: string) => this.snapshot.resolve(linkpath, this.path);
    for (const p of this.raw) out[p.key] = typedValue(JSON.parse(p.json), effectiveType(p.key, p.type, this.snapshot.declared), resolve);
    this.typed = out;
    return out;
  }

  ctimeMs(): number {
    if (this.ctime === null) this.ctime = this.snapshot.creationTime(this.path) ?? this.mtimeMs;
    return this.ctime;
  }

  tags(): readonly string[] {
    this.parsedTags ??= this.tagsJson ? (JSON.parse(this.tagsJson) as string[]) : [];
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

export class IndexSnapshot implements World {
  /** Every file a base can list: all indexed files minus Obsidian's excluded files. */
  readonly candidates: readonly Entry[];
  private readonly byPath = new Map<string, IndexEntry>();
  private resolver: LinkResolver | null = null;
  private graph: LinkGraph | null = null;

  constructor(
    private readonly store: IndexStore,
    private readonly vault: Vault,
    readonly declared: DeclaredTypes,
    excluded: (path: string) => boolean,
  ) {
    const props = new Map<number, RawProperty[]>();
    for (const p of store.bases.properties()) {
      let list = props.get(p.fileId);
      if (!list) props.set(p.fileId, (list = []));
      list.push({ key: p.key, type: inferPropertyType(JSON.parse(p.valueJson)), json: p.valueJson });
    }
    const tags = new Map(store.bases.tags().map((t) => [t.fileId, t.tagsJson]));
    const candidates: Entry[] = [];
    for (const f of store.bases.files()) {
      const entry = this.entryOf(f, props.get(f.id) ?? [], tags.get(f.id) ?? null);
      this.byPath.set(f.path, entry);
      if (!excluded(f.path)) candidates.push(entry);
    }
    this.candidates = candidates;
  }

  private entryOf(f: BaseFileRow, raw: RawProperty[], tagsJson: string | null): IndexEntry {
    return new IndexEntry(this, f.id, f.path, f.kind, f.size, f.mtimeMs, raw, tagsJson);
  }

  entry(path: string): Entry | null {
    return this.byPath.get(path) ?? null;
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

/** The snapshot of this index, reused while the index, types.json and the excluded files stay the same. */
export function snapshotOf(store: IndexStore, vault: Vault): IndexSnapshot {
  const declared = readDeclaredTypes(vault.root);
  const ignore = readObsidianApp(vault.root).userIgnoreFilters;
  const key = `${store.bases.generation()}\n${declared.text}\n${ignore.join("\n")}`;
  const hit = cache.get(store);
  if (hit && hit.key === key) return hit.snapshot;
  const snapshot = new IndexSnapshot(store, vault, declared.types, ignoredBy(ignore));
  cache.set(store, { key, snapshot });
  return snapshot;
}
