import { edenGC } from "bun:jsc";
import { statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { IndxError, isSqliteCorruption } from "../../core/errors.ts";
import type { ProgressFn } from "../../core/progress.ts";
import { embeddingsConfigured } from "../../providers/settings.ts";
import { LinkResolver } from "../../vault/link-resolver.ts";
import { type FolderStamp, fileKind, type ScannedFile, scanVault } from "../../vault/scan.ts";
import type { Vault } from "../../vault/vault.ts";
import type { IndexConnection } from "../storage/connection.ts";
import { indexIdentity } from "../storage/connection.ts";
import { setAsideDamaged } from "../storage/corruption.ts";
import type { FileStamp, StoredFile } from "../storage/queries/files.ts";
import { damagedReason, IndexStore } from "../storage/store.ts";
import { ExtractionCache } from "./document-extract.ts";
import { type DocumentSettings, documentSettings } from "./document-rows.ts";
import { type FileRows, type IndexWarning, readsWhole } from "./file-rows.ts";
import { saveFolderStamps } from "./folder-check.ts";
import type { IndexJob } from "./jobs.ts";
import { InlineRows, type RowSource, WorkerRows } from "./rows-pipeline.ts";

export interface IndexReport {
  rebuilt: string | null;
  scanned: number;
  added: number;
  updated: number;
  unchanged: number;
  deleted: number;
  linksReresolved: number;
  /** Vault paths whose content was added, changed or deleted by this pass (subscriptions, events). */
  changed: string[];
  /** Of `changed`: the paths that are new, and the paths that are gone. */
  addedPaths: string[];
  deletedPaths: string[];
  warnings: IndexWarning[];
  durationMs: number;
}

const BATCH = 250;
/**
 * A batch also ends once its files hold this many bytes to read. Each batch is parsed, encoded
 * and held by both threads at once, so its size in bytes is what their memory follows: 250 notes
 * of a real documentation vault (5 KB each, translations with CJK grams) made 8 MB slots and a
 * rows worker heap of 100 MB (docs/decisions.md, "A build's memory follows its batches").
 */
const BATCH_BYTES = 512 * 1024;
/** Below this many files to read, starting a rows worker costs about what it saves. */
const ROWS_WORKER_MIN = 1000;

export interface IndexPassOptions {
  onProgress?: ProgressFn;
  /**
   * Whether a rows worker reads and parses the changed files while this thread writes them
   * (rows-pipeline.ts). By default one does for ROWS_WORKER_MIN files or more, given two cores.
   */
  rowsWorker?: boolean;
  /** Polled between batches: true stops the pass with `cancelled` (a rebuild then rolls back whole). */
  stopRequested?: () => boolean;
}

/**
 * Brings the index in line with the disk: stat → (size, mtime) differs → hash → reparse only
 * when the bytes changed; files gone from disk are pruned; batched transactions so readers keep
 * seeing the last good index. `only` limits the pass to some paths (watcher, writes).
 */
export function updateIndex(vault: Vault, store: IndexStore, opts: IndexPassOptions & { only?: string[]; rebuilt?: string | null } = {}): IndexReport {
  const started = performance.now();
  const warnings: IndexWarning[] = [];
  // What the index holds of each file: its size and mtime, enough to tell whether it changed.
  let stamps: FileStamp[] = [];
  const indexed = new Map<string, FileStamp>();
  const readIndexed = () => {
    stamps = store.files.stamps();
  };
  const mapIndexed = () => {
    for (const stamp of stamps) indexed.set(stamp[0], stamp);
  };

  let present: ScannedFile[];
  let folders: FolderStamp[] | null = null;
  let gone: string[] = [];
  let unchanged = false;
  if (opts.only) {
    // Only the named paths' stamps: a targeted pass costs what it touches, not the vault's size.
    const named = [...new Set(opts.only)];
    stamps = store.files.stampsOf(named);
    mapIndexed();
    present = [];
    for (const path of named) {
      const f = statOne(vault, path);
      if (f) present.push(f);
      else if (indexed.has(path)) gone.push(path);
    }
  } else {
    // The index is read while a stat worker (on a large vault) starts.
    const scan = scanVault(vault.root, vault.exclusions, { whileStatting: readIndexed });
    for (const s of scan.skipped)
      warnings.push({ code: s.reason === "symlink_escape" ? "symlink_escape" : "unreadable", path: s.path, message: `skipped: ${s.reason}` });
    present = scan.files;
    folders = scan.folders;
    // An unchanged vault is walked in the order it was first indexed (the index's rowid order): then
    // no map of every path is needed to tell that nothing changed (about 40 ms at 100,000 files).
    unchanged = unchangedInOrder(stamps, present);
    if (!unchanged) mapIndexed();
  }

  let still = 0;
  const changed = unchanged
    ? []
    : present.filter((f) => {
        const s = indexed.get(f.path);
        if (s) still++;
        return !s || s[1] !== f.size || s[2] !== f.mtimeMs;
      });
  // Usually every indexed file was scanned, as the count shows, and no set is needed to find none gone.
  if (!opts.only && !unchanged) gone = still === indexed.size ? [] : goneFrom(indexed, present);
  // The stored rows (id, etag) of the indexed files read again.
  const stored = new Map<string, StoredFile>();
  const reread = changed.filter((f) => indexed.has(f.path)).map((f) => f.path);
  if (reread.length) for (const row of store.files.storedOf(reread)) stored.set(row.path, row);

  // Nothing changed is the common pass (a watcher, a start-up): it needs no resolver over every path.
  // A targeted pass patches the one kept from the last pass on this store (keptResolver); a full
  // pass builds one over what it found.
  const resolves = changed.length > 0 || gone.length > 0;
  // A pass that changes no path still writes (updated_at): the kept resolver is kept past that.
  const keptAsIs = resolves ? null : currentResolver(store);
  const resolver = !resolves ? new LinkResolver([]) : opts.only ? takeResolver(store) : buildResolver(present.map((f) => f.path));
  for (const p of gone) resolver.remove(p);
  const addedPaths: string[] = [];
  for (const f of changed)
    if (!indexed.has(f.path)) {
      resolver.add(f.path);
      addedPaths.push(f.path);
    }

  // A first build loads rows without secondary indexes, and builds them once at the end.
  const bulk = !opts.only && indexed.size === 0 && changed.length > BATCH;
  const writer = store.writer();
  let added = 0;
  let updated = 0;
  let touchedOnly = 0;
  const changedPaths: string[] = [];
  const total = changed.length + gone.length;
  let done = 0;

  const applyBatch = store.transaction((batch: ScannedFile[], rows: (FileRows | null)[]) => {
    batch.forEach((f, i) => {
      const prev = stored.get(f.path);
      const result = rows[i];
      if (!result) {
        warnings.push({ code: "unreadable", path: f.path, message: "the file could not be read" });
        return;
      }
      if (result.warning) warnings.push(result.warning);
      if (prev && prev.etag !== null && prev.etag === result.etag) {
        writer.touch(prev.id, f.size, f.mtimeMs);
        touchedOnly++;
        return;
      }
      writer.upsert({ path: f.path, kind: f.kind, size: f.size, mtimeMs: f.mtimeMs, etag: result.etag }, result.note, resolver, result.document ?? null);
      changedPaths.push(f.path);
      if (prev) updated++;
      else added++;
    });
  });
  const documents = documentSettings(vault);
  const ends = batchEnds(changed, vault.config.int("index.max_note_bytes"), documents);
  const rows = rowSource(vault, stored, changed, ends, documents, opts.rowsWorker);
  const loadBatch = (start: number, end: number): number => {
    const batch = changed.slice(start, end);
    applyBatch(batch, rows.next(batch));
    return batch.length;
  };

  try {
    if (bulk) store.beginBulkLoad();
    let start = 0;
    for (const end of ends) {
      throwIfStopped(opts);
      done += loadBatch(start, end);
      start = end;
      // The batch's rows are young garbage now: collected at once, they never pile up. (Left to
      // itself the collector let a large build grow by 150+ MB; in loadBatch's own frame the
      // stack would still point at them.)
      if (ends.length > 1) edenGC();
      opts.onProgress?.(done, total);
    }
  } finally {
    rows.close();
  }

  throwIfStopped(opts);
  if (bulk) store.mergeFullText();
  store.ensureIndexes({ hashes: embeddingsConfigured(vault.config) });
  if (bulk) {
    store.releaseFreePages();
    store.endBulkLoad();
  }
  let linksReresolved = 0;
  // A targeted pass that wrote nothing (the watcher hearing a file indx itself just wrote and
  // indexed) leaves the index as it was: no write, so nothing kept for its generation is dropped.
  const wroteNothing = opts.only && changedPaths.length === 0 && touchedOnly === 0 && gone.length === 0;
  if (!wroteNothing)
    store.transaction(() => {
      for (const p of gone) writer.remove(p);
      // On a first build every link was resolved against the complete file list already. A targeted
      // pass does not know whether the index was empty, and there re-resolves nothing but its own.
      if (opts.only || indexed.size > 0) linksReresolved = writer.reresolve([...gone, ...addedPaths], resolver, new Set(changedPaths));
      store.setMeta("updated_at", new Date().toISOString());
      if (!opts.only) store.markBuildComplete();
      if (folders) saveFolderStamps(store, folders);
    })();
  // A new file that could not be read is not in the index: the kept resolver must not know it either.
  const written = new Set(changedPaths);
  for (const p of addedPaths) if (!written.has(p)) resolver.remove(p);
  if (resolves) keepResolver(store, resolver);
  else if (keptAsIs) keepResolver(store, keptAsIs);
  // The extraction cache keeps the documents the vault still has (a full pass knows them all).
  if (!opts.only && documents && (changed.length || gone.length)) new ExtractionCache(documents.cacheDir).prune(store.documents.etags());
  opts.onProgress?.(total, total);

  return {
    rebuilt: opts.rebuilt ?? null,
    scanned: opts.only ? opts.only.length : present.length,
    added,
    updated,
    unchanged: present.length - changed.length + touchedOnly,
    deleted: gone.length,
    linksReresolved,
    changed: [...changedPaths, ...gone],
    addedPaths: changedPaths.filter((p) => !indexed.has(p)),
    deletedPaths: gone,
    warnings,
    durationMs: Math.round(performance.now() - started),
  };
}

/**
 * The resolver over every indexed path, kept per store between passes with the index generation it
 * matches (docs/decisions.md, "A targeted index pass patches a kept link resolver"). An edit of a
 * note changes no path, so it needs no resolver built over the vault; a new, deleted or renamed
 * file patches the kept one. Any write the pass did not make (another process's build, a pass that
 * failed and rolled back) moves the generation, and the next pass builds the resolver again.
 */
const kept = new WeakMap<IndexStore, { resolver: LinkResolver; generation: string }>();
let resolverBuilds = 0;

/** How many resolvers over a whole vault the indexer has built in this thread (tests count them). */
export function linkResolverBuilds(): number {
  return resolverBuilds;
}

function buildResolver(paths: Iterable<string>): LinkResolver {
  resolverBuilds++;
  return new LinkResolver(paths);
}

/** The kept resolver, if the index is still as the last pass left it; it is no longer kept while this pass changes it. */
function takeResolver(store: IndexStore): LinkResolver {
  const current = currentResolver(store);
  kept.delete(store);
  return current ?? buildResolver(store.files.paths());
}

function currentResolver(store: IndexStore): LinkResolver | null {
  const k = kept.get(store);
  return k && k.generation === store.generation() ? k.resolver : null;
}

function keepResolver(store: IndexStore, resolver: LinkResolver): void {
  kept.set(store, { resolver, generation: store.generation() });
}

/** The synchronous work of one job, on the thread that calls it. */
export function runIndexJob(vault: Vault, connection: IndexConnection, job: IndexJob, opts: IndexPassOptions): IndexReport {
  if ("build" in job) {
    // A build opens a connection of its own, and may replace the file the open one holds.
    connection.release();
    return runIndex(vault, { ...opts, rebuild: job.rebuild });
  }
  return updateIndex(vault, connection.open(), { ...opts, only: "paths" in job ? job.paths : undefined });
}

/**
 * Opens (or creates, or rebuilds when incompatible) the index and brings it up to date. A rebuild
 * of a compatible index replaces its contents in one transaction, so readers keep answering from
 * it until the new one is complete (docs/decisions.md, "Index passes off the request thread").
 */
export function runIndex(vault: Vault, opts: IndexPassOptions & { rebuild?: boolean } = {}): IndexReport {
  vault.ensureDataDir();
  const identity = indexIdentity(vault);
  const { store, rebuilt, replace } = IndexStore.openForIndexing(vault.indexPath, identity, opts.rebuild);
  const pass = (on: IndexStore, why: string | null) =>
    updateIndex(vault, on, { onProgress: opts.onProgress, stopRequested: opts.stopRequested, rowsWorker: opts.rowsWorker, rebuilt: why });
  try {
    return replace ? store.replaceContents(() => pass(store, rebuilt)) : pass(store, rebuilt);
  } catch (err) {
    // A rebuild always succeeds (docs/decisions.md, "A damaged index"): damage the probe could not
    // see (a page deep in a table, which dropping the table reads) sets the file aside, and the
    // build starts on a new one. Any other pass keeps its error, which names the fix.
    if (!opts.rebuild || !isSqliteCorruption(err)) throw err;
    store.close();
    const setAside = setAsideDamaged(vault.indexPath);
    const again = IndexStore.openForIndexing(vault.indexPath, identity, true);
    try {
      return pass(again.store, damagedReason("the index file was damaged", setAside));
    } finally {
      again.store.close();
    }
  } finally {
    store.close();
  }
}

/** Where each batch ends: after BATCH files, or once its files hold BATCH_BYTES to read. */
function batchEnds(files: readonly ScannedFile[], maxNoteBytes: number, documents: DocumentSettings | null): number[] {
  const ends: number[] = [];
  let count = 0;
  let bytes = 0;
  files.forEach((f, i) => {
    count++;
    if (readsWhole(f, maxNoteBytes, documents)) bytes += f.size;
    if (count === BATCH || bytes >= BATCH_BYTES || i === files.length - 1) {
      ends.push(i + 1);
      count = 0;
      bytes = 0;
    }
  });
  return ends;
}

function rowSource(
  vault: Vault,
  stored: Map<string, StoredFile>,
  files: ScannedFile[],
  ends: number[],
  documents: DocumentSettings | null,
  worker?: boolean,
): RowSource {
  const o = {
    root: vault.root,
    documents,
    maxNoteBytes: vault.config.int("index.max_note_bytes"),
    storedEtag: (path: string) => stored.get(path)?.etag ?? null,
  };
  const useWorker = worker ?? (files.length >= ROWS_WORKER_MIN && availableParallelism() > 1);
  return useWorker ? new WorkerRows(o, files, ends) : new InlineRows(o);
}

/** True when the scan found exactly the indexed files, in the same order, none changed in size or mtime. */
function unchangedInOrder(stamps: FileStamp[], present: ScannedFile[]): boolean {
  if (stamps.length !== present.length) return false;
  return stamps.every(([path, size, mtimeMs], i) => {
    const f = present[i];
    return f !== undefined && path === f.path && size === f.size && mtimeMs === f.mtimeMs;
  });
}

/** The stored paths no longer on disk. */
function goneFrom(indexed: Map<string, FileStamp>, present: ScannedFile[]): string[] {
  const seen = new Set(present.map((f) => f.path));
  return [...indexed.keys()].filter((p) => !seen.has(p));
}

function throwIfStopped(opts: IndexPassOptions): void {
  if (opts.stopRequested?.())
    throw new IndxError("cancelled", "The index pass was cancelled; what it had not committed was rolled back.", { reason: "cancelled" });
}

function statOne(vault: Vault, path: string): ScannedFile | null {
  if (vault.exclusions.excludes(path)) return null;
  try {
    const st = statSync(vault.abs(path));
    if (!st.isFile()) return null;
    return { path, kind: fileKind(path), size: st.size, mtimeMs: Math.floor(st.mtimeMs) };
  } catch {
    return null;
  }
}
