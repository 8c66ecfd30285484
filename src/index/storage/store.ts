import { constants, Database } from "bun:sqlite";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { IndxError, indexCorruptError, isSqliteCorruption } from "../../core/errors.ts";
import { fileIdentity } from "../../core/file-identity.ts";
import { VersionedMemo } from "../../core/memo.ts";
import { dataDirError } from "../../vault/vault.ts";
import { setAsideDamaged } from "./corruption.ts";
import { BaseQueries } from "./queries/bases.ts";
import { ChunkQueries } from "./queries/chunks.ts";
import { DocumentQueries } from "./queries/documents.ts";
import { FileQueries } from "./queries/files.ts";
import { FtsQueries } from "./queries/fts.ts";
import { LinkQueries } from "./queries/links.ts";
import { NoteQueries } from "./queries/notes.ts";
import { StatsQueries } from "./queries/stats.ts";
import { TagQueries } from "./queries/tags.ts";
import { DATA_SQL, DROP_DATA_SQL, HASH_INDEX_SQL, INDEX_NAMES, INDEX_SQL, SCHEMA_SQL, SCHEMA_VERSION } from "./schema.ts";
import { dataVersion, installVisibility, VisibleFiles } from "./visibility.ts";
import { IndexWriter } from "./writer.ts";

export interface IndexIdentity {
  vaultId: string;
  /** Hash of the settings that change what gets indexed (exclusions, limits, chunk size). */
  configFingerprint: string;
}

const UNFINISHED = "an index build is still running or did not finish";

/** Why a file cannot be used as the index; `damaged` ones are set aside (src/index/storage/corruption.ts), the others replaced. */
interface Problem {
  reason: string;
  damaged: boolean;
}

/** A build's `rebuilt` reason once a damaged file was set aside: what was wrong, and where the file went. */
export function damagedReason(reason: string, setAsideAs: string | null): string {
  return setAsideAs ? `${reason}; it was set aside as ${setAsideAs}` : reason;
}

/**
 * The SQLite file that holds the index. One connection per process; WAL lets `serve` answer
 * reads while `indx vault index` (or the watcher) writes. Derived data only: safe to delete.
 *
 * The connection stays private: everything else reads through the typed queries below, grouped
 * by concept, so another store could stand in without touching operations or surfaces. They run
 * their SQL through `db.query`, which bun:sqlite caches per connection: each statement is compiled
 * once, on first use (none at open, so a command pays only for what it reads).
 */
export class IndexStore {
  /** Which file the connection opened: a deleted or replaced index file is no longer this one. */
  private readonly inode: string | null;
  readonly files: FileQueries;
  readonly notes: NoteQueries;
  readonly links: LinkQueries;
  readonly tags: TagQueries;
  readonly chunks: ChunkQueries;
  readonly fts: FtsQueries;
  readonly stats: StatsQueries;
  readonly bases: BaseQueries;
  readonly documents: DocumentQueries;
  private readonly memo = new VersionedMemo();
  /** A grant's store (openScoped): what it may read, and the data_version it was last filled at. */
  private readonly visibility: { files: VisibleFiles; ids: ReadonlySet<number>; version: number } | null;

  private constructor(
    private readonly db: Database,
    readonly path: string,
    canRead: ((path: string) => boolean) | null = null,
  ) {
    if (canRead) installVisibility(db);
    this.visibility = canRead ? { files: new VisibleFiles(canRead), ids: new Set(), version: -1 } : null;
    this.files = new FileQueries(db);
    this.notes = new NoteQueries(db);
    this.links = new LinkQueries(db);
    this.tags = new TagQueries(db);
    this.chunks = new ChunkQueries(db);
    this.fts = new FtsQueries(db, this.visibility ? () => this.visibleIds() : null);
    this.stats = new StatsQueries(db, this.links);
    this.bases = new BaseQueries(db);
    this.documents = new DocumentQueries(db);
    this.inode = fileIdentity(path);
  }

  /**
   * A result computed from the whole index, kept until the index changes (src/core/memo.ts):
   * `key` names the question, `weightOf` the result's size in rows, which bounds the memory kept.
   */
  derived<V>(key: string, compute: () => V, weightOf: (value: V) => number): V {
    return this.memo.get(this.generation(), key, compute, weightOf);
  }

  /** Changes whenever the index does (another connection's commit, or a write of this one). */
  generation(): string {
    return this.bases.generation();
  }

  /** How many derived results are kept now (what the derived-results tests observe). */
  get derivedKept(): number {
    return this.memo.size;
  }

  /**
   * False once the index file was deleted (the data folder removed) or replaced by a build in
   * another process: this connection would go on reading, and writing, a file nobody else sees.
   */
  isCurrent(): boolean {
    return this.inode !== null && fileIdentity(this.path) === this.inode;
  }

  /**
   * Another read connection to this index that sees only the files `canRead` allows
   * (src/index/storage/visibility.ts): a folder grant's view (docs/permissions.md).
   */
  static openScoped(path: string, identity: IndexIdentity, canRead: (path: string) => boolean): IndexStore {
    return IndexStore.openExisting(path, identity, canRead);
  }

  /** The ids a grant's store shows, filled again whenever the index changed since (a grant's store only). */
  private visibleIds(): ReadonlySet<number> {
    const v = this.visibility;
    if (!v) throw new Error("visibleIds() of an unscoped store");
    const version = dataVersion(this.db);
    if (version !== v.version) {
      v.files.sync(this.db);
      v.ids = v.files.ids;
      v.version = version;
    }
    return v.ids;
  }

  /** Brings a grant's view in line with the index as it is now (the context calls it once per call); nothing for a whole store. */
  refreshVisibility(): void {
    if (this.visibility) this.visibleIds();
  }

  /** Opens an existing index for reading and checks that it belongs to this vault and version. */
  static openExisting(path: string, identity: IndexIdentity, canRead: ((path: string) => boolean) | null = null): IndexStore {
    if (!existsSync(path)) {
      const unusable = dataDirError(dirname(path));
      if (unusable) throw unusable;
      throw new IndxError("index_missing", "This vault has no index yet. Run `indx vault index` (or `indx serve`, which builds it).", {
        fix: "indx vault index",
      });
    }
    let store: IndexStore;
    let problem: Problem | null;
    try {
      store = new IndexStore(connect(path), path, canRead);
    } catch (err) {
      throw isSqliteCorruption(err) ? indexCorruptError() : err;
    }
    try {
      problem = store.incompatibility(identity);
    } catch (err) {
      store.close();
      throw isSqliteCorruption(err) ? indexCorruptError() : err;
    }
    if (problem) {
      store.close();
      if (problem.damaged) throw indexCorruptError(problem.reason);
      // An unfinished build is redone by a plain index run; the other problems need --rebuild spelled out.
      const fix = problem.reason === UNFINISHED ? "indx vault index" : "indx vault index --rebuild";
      throw new IndxError("index_incompatible", `The index cannot be used: ${problem.reason}. Run \`${fix}\` to rebuild it.`, { reason: problem.reason, fix });
    }
    return store;
  }

  /**
   * Opens the index for indexing: creates it when missing and starts over when it is from another
   * schema version, vault or indexing configuration (an explicit index run is the fix for those).
   * A damaged file, or one that is no indx index, is set aside rather than deleted (setAsideDamaged).
   * A rebuild of a compatible index keeps the file: `replace` says to load it through
   * replaceContents(), so readers keep the last good index until the new one is committed.
   */
  static openForIndexing(path: string, identity: IndexIdentity, rebuild = false): { store: IndexStore; rebuilt: string | null; replace: boolean } {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    let problem: Problem | null = null;
    if (existsSync(path)) {
      try {
        const probe = new IndexStore(connect(path), path);
        try {
          problem = probe.incompatibility(identity);
        } finally {
          probe.close();
        }
      } catch (err) {
        problem = isSqliteCorruption(err) ? { reason: "the index file is damaged", damaged: true } : { reason: "the index file is unreadable", damaged: false };
      }
    }
    let reason = problem?.reason ?? null;
    if (problem?.damaged) reason = damagedReason(problem.reason, setAsideDamaged(path));
    else if (problem) for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
    const fresh = !existsSync(path);
    const store = new IndexStore(connect(path), path);
    if (fresh) store.create(identity);
    if (fresh) return { store, rebuilt: reason ?? (rebuild ? "rebuild requested" : "new index"), replace: false };
    return { store, rebuilt: rebuild ? "rebuild requested" : null, replace: rebuild };
  }

  /**
   * Runs `load` in ONE write transaction after dropping every derived row (the data tables are
   * dropped and made again, which is quicker than deleting rows one by one from FTS5 and leaves no
   * orphan by construction). WAL readers see the old index until the commit; an error — a
   * cancellation, a crash, a SIGKILL — rolls everything back. Transactions inside `load` become
   * savepoints.
   */
  replaceContents<T>(load: () => T): T {
    return this.db
      .transaction(() => {
        for (const drop of DROP_DATA_SQL) this.db.run(drop);
        this.db.run(DATA_SQL);
        return load();
      })
      .immediate();
  }

  private create(identity: IndexIdentity): void {
    this.db.transaction(() => {
      this.db.run(SCHEMA_SQL);
      // The content-hash index waits for the first index pass, which knows whether embeddings are on.
      this.ensureIndexes({ hashes: false });
      this.setMeta("schema_version", String(SCHEMA_VERSION));
      this.setMeta("vault_id", identity.vaultId);
      this.setMeta("config_fingerprint", identity.configFingerprint);
      this.setMeta("created_at", new Date().toISOString());
      // Until the first full pass ends, the index holds only part of the vault: see incompatibility().
      this.setMeta("build_state", "building");
    })();
  }

  /** The first full pass over the vault ended: the index may now answer. */
  markBuildComplete(): void {
    this.setMeta("build_state", "complete");
  }

  /**
   * Why this file cannot serve as this vault's index, or null. A file without the meta table (an
   * empty file, another program's database) counts as damaged: it is set aside, never deleted.
   * SQLite's corruption errors pass through to the caller.
   */
  private incompatibility(identity: IndexIdentity): Problem | null {
    let version: string | null;
    try {
      version = this.getMeta("schema_version");
    } catch (err) {
      if (isSqliteCorruption(err)) throw err;
      return { reason: "the index file is not an indx index", damaged: true };
    }
    const incompatible = (reason: string): Problem => ({ reason, damaged: false });
    if (version !== String(SCHEMA_VERSION))
      return incompatible(`it was written by another indx version (schema ${version ?? "unknown"}, expected ${SCHEMA_VERSION})`);
    if (this.getMeta("vault_id") !== identity.vaultId) return incompatible("it belongs to another vault");
    if (this.getMeta("config_fingerprint") !== identity.configFingerprint) return incompatible("the indexing configuration changed");
    if (this.getMeta("build_state") === "building") return incompatible(UNFINISHED);
    return null;
  }

  /**
   * Creates any missing secondary index (a no-op when they all exist); the content-hash index
   * only when `hashes` (embeddings are configured). One built before stays.
   */
  ensureIndexes(opts: { hashes: boolean }): void {
    for (const sql of INDEX_SQL) this.db.run(sql);
    if (opts.hashes) this.db.run(HASH_INDEX_SQL);
  }

  /**
   * Before a first build: drops the secondary indexes (ensureIndexes() builds them once at the
   * end) and skips fsyncs. Derived data that nobody reads while it is built. Checkpoints still run
   * as the WAL grows: one checkpoint of the whole WAL at the end cost more than all of them
   * (docs/decisions.md, "Building a large vault"). Inside replaceContents() only the indexes go:
   * SQLite refuses to change `synchronous` within a transaction. The page cache shrinks meanwhile:
   * a load only appends, and a full cache was 30 MB of a 100,000-note build's peak memory for no
   * gain in time; CREATE INDEX even sorts faster with the small one, and with a helper thread.
   * notes_fts stops merging its segments while it loads: mergeFullText() merges them all once at
   * the end, and merging them on the way as well cost a sixth of the load's time.
   */
  beginBulkLoad(): void {
    this.db.run(`PRAGMA cache_size = -${BULK_CACHE_KIB}`);
    this.db.run(`PRAGMA threads = ${BULK_SORT_THREADS}`);
    for (const name of INDEX_NAMES) this.db.run(`DROP INDEX IF EXISTS ${name}`);
    this.setFullTextMerging(0, FTS5_BULK_CRISIS_MERGE);
    if (this.db.inTransaction) return;
    this.db.run("PRAGMA synchronous = OFF");
  }

  /**
   * After a load: notes_fts holds as many segments as the load flushed; merged into one, each
   * search term is one doclist to read instead of one per segment (src/index/lexical/fts5-postings.ts):
   * 40 ms at 5,000 notes, about 1.3 s at 100,000. Before ensureIndexes(): the secondary indexes
   * then fill the pages the old segments leave free, instead of growing the file. Later writes
   * merge as FTS5 does by default.
   */
  mergeFullText(): void {
    this.db.run("INSERT INTO notes_fts(notes_fts) VALUES ('optimize')");
    this.setFullTextMerging(FTS5_DEFAULT_AUTOMERGE, FTS5_DEFAULT_CRISIS_MERGE);
  }

  /** Returns the pages nothing uses any more to the file system (an index made before auto_vacuum keeps them). */
  releaseFreePages(): void {
    this.db.run("PRAGMA incremental_vacuum");
  }

  /** Back to durable writes and the whole cache after beginBulkLoad(). */
  endBulkLoad(): void {
    this.db.run(`PRAGMA cache_size = -${pageCacheKiB}`);
    this.db.run("PRAGMA threads = 0");
    if (this.db.inTransaction) return;
    this.db.run("PRAGMA synchronous = NORMAL");
  }

  /**
   * Wraps `fn` so each call runs in one write transaction (rolled back when it throws). It starts
   * IMMEDIATE: a deferred one reads first, and its upgrade to a writer fails at once with
   * SQLITE_BUSY (busy_timeout does not apply) when another process wrote meanwhile.
   */
  transaction<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void {
    return this.db.transaction(fn).immediate;
  }

  /** Statements that write one file's rows; run them inside transaction(). */
  writer(): IndexWriter {
    return new IndexWriter(this.db);
  }

  getMeta(key: string): string | null {
    const row = this.db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key);
    return row?.value ?? null;
  }

  setMeta(key: string, value: string): void {
    this.db.query("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
  }

  /** How long a write waits for another writer's lock (ms) before SQLITE_BUSY. */
  setBusyTimeout(ms: number): void {
    this.db.run(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(ms))}`);
  }

  /**
   * FTS5's 'automerge' and 'crisismerge' options (stored in notes_fts_config): how many segments
   * of one level it lets pile up before it merges them as it writes, and before it must.
   */
  private setFullTextMerging(automerge: number, crisismerge: number): void {
    const set = this.db.prepare("INSERT INTO notes_fts(notes_fts, rank) VALUES (?, ?)");
    set.run("automerge", automerge);
    set.run("crisismerge", crisismerge);
  }

  private closed = false;

  /** Closes the connection; a second call does nothing (a failed rebuild closes before setting the file aside). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.fts.close();
    // SQLite's last connection to a file deletes its -wal and -shm on close, by name: once this
    // file was set aside or replaced (isCurrent), those names are the new index's files. Persistent
    // WAL mode keeps this connection from deleting them (it truncates only what it holds open).
    if (!this.isCurrent()) this.db.fileControl(constants.SQLITE_FCNTL_PERSIST_WAL, 1);
    this.db.close();
  }
}

/** The page cache of a connection, and of a first build's load (KiB). */
const CACHE_KIB = 32_000;
const BULK_CACHE_KIB = 2_000;
/** The page cache of the connections this thread opens from now on (each thread has its own). */
let pageCacheKiB = CACHE_KIB;

/**
 * Gives the connections this thread opens from now on a page cache of `kib` KiB instead of
 * CACHE_KIB: a reader worker of `serve` takes a smaller one (src/app/reader-worker.ts).
 */
export function setPageCacheKiB(kib: number): void {
  pageCacheKiB = kib;
}
/** Helper threads SQLite may sort with while CREATE INDEX runs on a first build. */
const BULK_SORT_THREADS = 2;
/** FTS5's defaults (fts5_config.c). */
const FTS5_DEFAULT_AUTOMERGE = 4;
const FTS5_DEFAULT_CRISIS_MERGE = 16;
/**
 * While a first build loads, notes_fts merges only when this many segments pile up on one level:
 * a 100,000-note load flushes about 400 (one per batch), so it merges none of them before
 * mergeFullText(). Well under the 2,000 segments past which FTS5 refuses to write (SQLITE_FULL).
 */
const FTS5_BULK_CRISIS_MERGE = 400;

/** How long a writer waits for another one (another process's index pass, a write). */
export const BUSY_TIMEOUT_MS = 10_000;

function connect(path: string): Database {
  const fresh = !existsSync(path);
  const db = new Database(path, { create: true, strict: true });
  // First: even the journal_mode pragma can meet a lock (another connection checkpointing or
  // recovering the WAL), and without a timeout it fails at once with "database is locked".
  db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // 8 KiB pages: a note's row (its compressed text, about 1 KB) wasted a sixth of a 4 KiB page on average.
  db.run("PRAGMA page_size = 8192");
  // Like page_size, taken only by a new file (before WAL writes its header): lets
  // releaseFreePages() hand back what merging the full-text index frees. Asked of an existing
  // file it waits for the write lock, which a reader must never do.
  if (fresh) db.run("PRAGMA auto_vacuum = INCREMENTAL");
  db.run("PRAGMA journal_mode = WAL");
  db.run("PRAGMA synchronous = NORMAL");
  db.run("PRAGMA foreign_keys = ON");
  db.run("PRAGMA temp_store = MEMORY");
  db.run(`PRAGMA cache_size = -${pageCacheKiB}`);
  return db;
}
