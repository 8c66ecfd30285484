import { existsSync, lstatSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { looksBinary } from "../core/binary.ts";
import { INDEX_NEEDS_BUILD, IndxError } from "../core/errors.ts";
import { etagOf } from "../core/hash.ts";
import { debugLog, logEvent } from "../core/log.ts";
import type { NewEvent } from "../events/types.ts";
import type { Caller, OpContext } from "../ops/context.ts";
import type { Grant } from "../ops/grant.ts";
import type { Warning } from "../ops/schemas.ts";
import { removeStaleTemps, renameDurable, sweepStaleTemps, syncFolders, unlinkDurable, writeTarget } from "./atomic.ts";
import { decodeUtf8, startsWithUtf8Bom } from "./encoding.ts";
import { writeError } from "./fs-errors.ts";
import { type JournalStep, WriteJournal } from "./journal.ts";
import { LandedWrites } from "./landed.ts";
import { PathLocks, VaultWriteLock } from "./lock.ts";
import { type PlannedWrite, plannedWrite } from "./preview.ts";
import { WriterQueue } from "./queue.ts";
import { Staging, type WriteTarget } from "./staging.ts";
import { trashDestination } from "./trash.ts";

const BOM = "\uFEFF";

/** A file as the write sees it, read inside the write lock. Text is without a BOM (kept aside). */
export interface FileState {
  path: string;
  exists: boolean;
  /** Null when the file is missing or its bytes are not UTF-8 text (see `content`). */
  text: string | null;
  etag: string | null;
  bom: boolean;
  content: "none" | "text" | "binary" | "not_utf8";
}

/** What a write expects of a file before it touches it. */
export type Expect = { etag: string } | { absent: true } | { present: true } | { anything: true };

export type Change =
  | { type: "write"; path: string; text: string; expect: Expect }
  /** Bytes as they are (an attachment): no text decoding, no BOM kept. */
  | { type: "write_bytes"; path: string; bytes: Uint8Array; expect: Expect }
  | { type: "delete"; path: string; expect: Expect }
  | { type: "move"; from: string; to: string; expect: Expect };

export interface Plan<T> {
  changes: Change[];
  value: T;
  /** Events beyond the per-file ones (tag.renamed). */
  events?: NewEvent[];
  /**
   * The changes stand alone (an AI apply batch of notes): a file changed from outside stops the
   * write at that file, and the files before it are kept. Otherwise the changes are one edit (a
   * move and its link rewrites) and every file is checked again before the first is replaced.
   */
  independent?: boolean;
}

/** A dry run of a plan: what transact would write, with nothing written. */
export interface Previewed<T> {
  value: T;
  /** The etag each planned file would have, by path. */
  etags: Record<string, string>;
  files: PlannedWrite[];
}

export interface Committed<T> {
  value: T;
  /** New etag of every file written or moved, by its path after the write. */
  etags: Record<string, string>;
  /** A deleted file went to the vault's trash (rather than being removed). */
  trashed: boolean;
  warnings: Warning[];
}

/** if_match `*`: any existing version. */
const ANY_VERSION = "*";

/**
 * The If-Match check every write shares: a missing file is not_found, another version is
 * etag_mismatch with the current etag, so the caller can read again and retry.
 */
export function assertVersion(state: FileState, ifMatch: string | undefined): void {
  if (ifMatch === undefined) return;
  if (ifMatch === ANY_VERSION) {
    // RFC 9110 §13.1.1: `*` matches any current version, and fails (412) when there is none.
    if (!state.exists)
      throw new IndxError("etag_mismatch", `${state.path} does not exist; if_match * needs an existing file`, {
        path: state.path,
        expected: ANY_VERSION,
        actual: null,
      });
    return;
  }
  if (!state.exists) throw new IndxError("not_found", `No file at ${state.path}`, { path: state.path });
  if (state.etag !== ifMatch)
    throw new IndxError("etag_mismatch", `${state.path} changed since it was read; read it again and retry with the new etag`, {
      path: state.path,
      expected: ifMatch,
      actual: state.etag,
    });
}

/** What has been applied so far in one plan. */
interface Applied {
  etags: Record<string, string>;
  touched: string[];
  events: NewEvent[];
  trashed: boolean;
  files: number;
  /** Folders holding replaced files, fsynced once each when the last file is in place. */
  folders: Set<string>;
}

export interface WriteIO {
  read(path: string): FileState;
}

/** Told the paths of a transaction's writes once their new bytes are staged, before the first file is replaced. */
export type StagedHook = (paths: readonly string[]) => void;

/**
 * The one path every write takes (docs/contracts.md, Writes): locks (per path in this process, then
 * a turn in the vault's queue of writers, whose run holds the lock file across processes) → the
 * plan, computed from files read inside the turn → every precondition checked before any byte is
 * written → every new file's bytes staged (durable temp files, fsynced together) → atomic replace
 * per file, in order, each after its precondition is checked again on the disk as it is then → one
 * fsync per folder → reindex of what changed → events. No other indx write can change a file
 * between the moment it is read and the moment it is replaced, and the second check keeps a save
 * from outside indx in that time. The turn ends once the files are in place: their reindex (in the
 * index worker under `serve`) runs in a batch with the writes that land meanwhile (LandedWrites),
 * under the path locks, and the result waits for it, so it reads what was written. A plan that
 * reads the index waits for those batches first, and the lock file is given to another process
 * only once they are done.
 */
export class VaultWriter {
  private readonly pathLocks: PathLocks;
  private readonly queue: WriterQueue;
  private readonly journal: WriteJournal;
  /** Folders already swept for leftover temp files by this process. */
  private readonly swept: Set<string>;
  private readonly stagedHooks: Set<StagedHook>;
  private readonly landed: LandedWrites;
  /** Set on a call's writer only (forCall): the caller's folder grant and who the caller is. */
  private callGrant: Grant | null = null;
  private callCaller: Caller | undefined = undefined;

  constructor(
    private readonly ctx: OpContext,
    /** Ends this writer's waits (for a path, for its turn), never a write that has begun. */
    private readonly signal?: AbortSignal,
    shared?: VaultWriter,
  ) {
    if (shared) {
      ({ pathLocks: this.pathLocks, queue: this.queue, journal: this.journal, swept: this.swept, stagedHooks: this.stagedHooks, landed: this.landed } = shared);
      return;
    }
    const dataDir = ctx.vault.ensureDataDir();
    this.pathLocks = new PathLocks();
    this.landed = new LandedWrites(
      syncFolders,
      (paths) => this.reindex(paths),
      (events, started) => this.emit(events, started),
    );
    // Another process gets the lock file only once what this one wrote is indexed: its plans may read the index.
    this.queue = new WriterQueue(new VaultWriteLock(dataDir), {}, () => this.landed.settled());
    this.journal = new WriteJournal(dataDir);
    this.swept = new Set();
    this.stagedHooks = new Set();
  }

  /**
   * This writer for one call: the same locks and queue, with the call's signal, so a caller that
   * goes away (an MCP cancel) leaves the queue at once rather than writing when its turn comes.
   */

  /**
   * This writer as one call uses it: the same locks, queue, journal and staging (the object behind
   * it), with the call's signal, so a caller that goes away (an MCP cancel) leaves the queue at once
   * rather than writing when its turn comes; every plan checked against the caller's grant before
   * anything is written (docs/permissions.md); every event naming the caller (the audit log).
   */
  forCall(call: { signal?: AbortSignal; grant?: Grant | null; caller?: Caller }): VaultWriter {
    if (call.signal === this.signal && !call.grant && !call.caller) return this;
    const writer = new VaultWriter(this.ctx, call.signal, this);
    writer.callGrant = call.grant ?? null;
    writer.callCaller = call.caller;
    return writer;
  }

  /**
   * A plan that would change a file outside the grant's write globs is refused whole, before its
   * first byte: a move or tag rename that must rewrite a note the token may not write is not
   * applied in part. The message names no file: one the token may not read does not exist for it.
   */
  private assertGranted(changes: readonly Change[]): void {
    const grant = this.callGrant;
    if (!grant) return;
    const paths = changes.flatMap((c) => (c.type === "move" ? [c.from, c.to] : [c.path]));
    if (paths.every((p) => grant.canWrite(p))) return;
    throw new IndxError("forbidden", "This edit would change files outside the folders this token may write; nothing was changed.", {
      reason: "outside_write_grant",
    });
  }

  async transact<T>(op: string, lockPaths: string[], plan: (io: WriteIO) => Plan<T>): Promise<Committed<T>> {
    return this.pathLocks.run(
      lockPaths,
      async () => {
        const { committed, landed } = await this.queue.run(async () => {
          await this.finishInterrupted();
          return this.applyPlan(op, plan);
        }, this.signal);
        return { ...committed, warnings: await landed };
      },
      this.signal,
    );
  }

  /**
   * transact without the write: the same plan from the same reads and every precondition checked,
   * so a dry run fails where the write would, and shows the files as the write would leave them.
   * Plans of writes only (note_write, note_patch). Nothing is locked: the write plans again.
   */
  preview<T>(plan: (io: WriteIO) => Plan<T>): Previewed<T> {
    const io = this.freshIO();
    const { changes, value } = plan(io);
    this.assertGranted(changes);
    for (const c of changes) this.check(c, io);
    const etags: Record<string, string> = {};
    const files: PlannedWrite[] = [];
    for (const c of changes) {
      if (c.type !== "write") throw new Error(`preview plans writes only, not a ${c.type}`);
      const before = io.read(c.path);
      etags[c.path] = etagOf(new TextEncoder().encode(fileText(c, before)));
      files.push(plannedWrite(before, c.text));
    }
    return { value, etags, files };
  }

  /**
   * Runs `hook` in every later transaction between the staging of its bytes and its first
   * replace, inside the locks: the widest part of the window in which a save from outside indx
   * (an editor) lands between a file's read and its replace, so a test can land one there.
   * Returns its removal.
   */
  onStaged(hook: StagedHook): () => void {
    this.stagedHooks.add(hook);
    return () => this.stagedHooks.delete(hook);
  }

  /**
   * Finishes a multi-file write a crashed process left half done, and removes the temp files killed
   * writers left anywhere in the vault (serve, mcp and vault index call this at start).
   */
  async recover(): Promise<void> {
    sweepStaleTemps(this.ctx.vault.root, unwrittenFolder);
    if (!this.journal.pending()) return;
    await this.queue.run(() => this.finishInterrupted());
  }

  private async finishInterrupted(): Promise<void> {
    const recovered = this.journal.recover(this.ctx.vault);
    if (!recovered) return;
    await this.reindex(recovered.touched);
    for (const e of recovered.events) this.ctx.events.emit(e);
    logEvent("write.recovered", { op: recovered.op, files: recovered.touched.length, skipped: recovered.skipped.length });
  }

  /**
   * The plan, from files read now. While writes that landed before are not indexed yet, a plan that
   * read the index (a move's backlinks, a heading's links) is made again once they are: plans
   * only read, so the first one is dropped. A context that cannot tell (`indexReads` unknown) waits.
   */
  private async planned<T>(plan: (io: WriteIO) => Plan<T>): Promise<{ io: WriteIO; planned: Plan<T> }> {
    if (this.landed.unsettled) {
      const before = this.ctx.indexReads;
      if (before !== undefined) {
        const io = this.freshIO();
        try {
          const planned = plan(io);
          if (this.ctx.indexReads === before) return { io, planned };
        } catch (err) {
          if (this.ctx.indexReads === before) throw err;
        }
      }
      await this.landed.settled();
    }
    const io = this.freshIO();
    return { io, planned: plan(io) };
  }

  /** The write, to its files in place; `landed` resolves once they are indexed and announced. */
  private async applyPlan<T>(op: string, plan: (io: WriteIO) => Plan<T>): Promise<{ committed: Omit<Committed<T>, "warnings">; landed: Promise<Warning[]> }> {
    const { io, planned } = await this.planned(plan);
    const { changes, value, events = [], independent = false } = planned;
    this.assertGranted(changes);
    for (const c of changes) this.check(c, io);

    const started = performance.now();
    const applied: Applied = { etags: {}, touched: [], events: [], trashed: false, files: 0, folders: new Set() };
    let staging: Staging<Change> | undefined;
    try {
      // Several files: write down every step first, so a crash part-way is finished by the next writer.
      if (changes.length > 1)
        this.journal.begin(
          op,
          changes.map((c) => journalStep(c, io)),
        );
      const writes = changes.filter((c) => c.type === "write" || c.type === "write_bytes");
      staging = await Staging.of(writes.map((c) => this.placeWrite(c, io)));
      for (const hook of this.stagedHooks) hook(writes.map((c) => c.path));
      // One edit over several files is all or nothing against a save from outside: a save while
      // the bytes were staged stops it here, before any replace (docs/decisions.md, "The
      // editor's save: checked at each replace").
      if (!independent && changes.length > 1) for (const c of changes) this.recheck(c, applied);
      for (const c of changes) {
        this.recheck(c, applied);
        if (c.type === "write" || c.type === "write_bytes") await this.applyWrite(op, c, staging, io, applied);
        else if (c.type === "delete") this.applyDelete(op, c, applied);
        else this.applyMove(op, c, io, applied);
        applied.files++;
      }
    } catch (err) {
      // Each file is atomic, so a failure leaves earlier files written and later ones untouched;
      // the index and the events follow the disk either way. The journal is for crashes: a
      // failure reported to the caller (permissions, a full disk) is not retried behind its back.
      staging?.discardRest();
      await syncFolders(applied.folders);
      this.journal.finish();
      await this.land(applied.touched, applied.events, started, []);
      throw new PartlyWritten(fsError(err, applied.files, changes.length), applied.etags);
    }

    // Every rename is durable before the journal goes (docs/decisions.md, "Writes in batches"). A
    // write of one file has no journal: its folder's fsync goes with its batch, once for every
    // write in the batch, still before its caller hears it is written.
    const journaled = changes.length > 1;
    if (journaled) {
      await syncFolders(applied.folders);
      this.journal.finish();
    }
    const landed = this.land(applied.touched, [...applied.events, ...events], started, journaled ? [] : [...applied.folders]);
    return { committed: { value, etags: applied.etags, trashed: applied.trashed }, landed };
  }

  /** Hands the reindex and events of files now in place to the next batch (LandedWrites). */
  private land(paths: string[], events: NewEvent[], started: number, folders: string[]): Promise<Warning[]> {
    if (paths.length === 0 && events.length === 0 && folders.length === 0) return Promise.resolve([]);
    // The audit log (docs/permissions.md): who wrote, by surface and token id, never the token.
    // Stamped here, by the call's own writer: the batch that announces it is shared.
    const caller = this.callCaller ?? this.ctx.caller;
    const by = caller ? { surface: caller.surface, ...(caller.token_id ? { token_id: caller.token_id } : {}) } : {};
    return this.landed.add({ paths, events: events.map((e) => ({ ...e, ...by })), started, folders });
  }

  private emit(events: readonly NewEvent[], started: number): void {
    const duration = Math.round(performance.now() - started);
    for (const e of events) this.ctx.events.emit({ ...e, duration_ms: duration });
  }

  /** Where a write's bytes go (its folder made, and swept of a crashed writer's temp files), or why they cannot. */
  private placeWrite(c: WriteChange, io: WriteIO): WriteTarget<Change> {
    try {
      const abs = this.ctx.vault.abs(c.path);
      if (!io.read(c.path).exists) mkdirSync(dirname(abs), { recursive: true });
      const target = writeTarget(abs);
      this.sweep(dirname(target));
      return { key: c, target, bytes: bytesOf(c, io) };
    } catch (err) {
      return { key: c, error: writeError(err) };
    }
  }

  private async applyWrite(op: string, c: WriteChange, staging: Staging<Change>, io: WriteIO, applied: Applied): Promise<void> {
    const { path } = c;
    const before = io.read(path);
    applied.folders.add(dirname(await staging.commit(c)));
    const etag = etagOf(bytesOf(c, io));
    applied.etags[path] = etag;
    applied.touched.push(path);
    applied.events.push({ kind: before.exists ? "note.updated" : "note.created", source: "indx", op, path, etag });
  }

  private applyDelete(op: string, c: Extract<Change, { type: "delete" }>, applied: Applied): void {
    const trash = trashDestination(this.ctx.vault, c.path);
    const abs = this.ctx.vault.abs(c.path);
    if (trash) {
      mkdirSync(dirname(trash), { recursive: true });
      renameDurable(abs, trash);
      applied.trashed = true;
    } else unlinkDurable(abs);
    applied.touched.push(c.path);
    applied.events.push({ kind: "note.deleted", source: "indx", op, path: c.path });
  }

  private applyMove(op: string, c: Extract<Change, { type: "move" }>, io: WriteIO, applied: Applied): void {
    const toAbs = this.ctx.vault.abs(c.to);
    mkdirSync(dirname(toAbs), { recursive: true });
    renameDurable(this.ctx.vault.abs(c.from), toAbs);
    // A file edited earlier in this plan (its own relative links) moves with its new etag.
    const etag = applied.etags[c.from] ?? io.read(c.from).etag;
    delete applied.etags[c.from];
    if (etag) applied.etags[c.to] = etag;
    applied.touched.push(c.from, c.to);
    applied.events.push({ kind: "note.moved", source: "indx", op, from: c.from, to: c.to });
  }

  /** Reads for one plan: each file once, so the plan and its checks see the same bytes. */
  private freshIO(): WriteIO {
    const cache = new Map<string, FileState>();
    return {
      read: (path) => {
        const cached = cache.get(path);
        if (cached) return cached;
        const state = this.readState(path);
        cache.set(path, state);
        return state;
      },
    };
  }

  private sweep(dir: string): void {
    if (this.swept.has(dir)) return;
    this.swept.add(dir);
    removeStaleTemps(dir);
  }

  private readState(path: string): FileState {
    const abs = this.ctx.vault.abs(path);
    let isFile = false;
    try {
      const st = lstatSync(abs);
      if (st.isSymbolicLink()) {
        // safePath has verified a resolvable link stays inside; a dangling one could point anywhere.
        if (!existsSync(abs)) throw new IndxError("path_invalid", `${path} is a dangling symbolic link`, { reason: "symlink_escape" });
        isFile = statSync(abs).isFile();
      } else isFile = st.isFile();
      if (!isFile) throw new IndxError("path_invalid", `${path} is not a file`, { reason: "wrong_kind" });
    } catch (err) {
      if (err instanceof IndxError) throw err;
      return { path, exists: false, text: null, etag: null, bom: false, content: "none" };
    }
    const bytes = readFileSync(abs);
    const etag = etagOf(bytes);
    if (looksBinary(bytes)) return { path, exists: true, text: null, etag, bom: false, content: "binary" };
    const text = decodeUtf8(bytes);
    if (text === null) return { path, exists: true, text: null, etag, bom: false, content: "not_utf8" };
    return { path, exists: true, text, etag, bom: startsWithUtf8Bom(bytes), content: "text" };
  }

  private check(c: Change, io: WriteIO): void {
    const path = c.type === "move" ? c.from : c.path;
    const state = io.read(path);
    const e = c.expect;
    if ("etag" in e) assertVersion(state, e.etag);
    else if ("absent" in e) {
      if (state.exists) throw new IndxError("already_exists", `${path} already exists`, { path, etag: state.etag });
    } else if ("present" in e) {
      if (!state.exists) throw new IndxError("not_found", `No file at ${path}`, { path });
    }
    if (c.type === "move" && io.read(c.to).exists && c.to.toLowerCase() !== c.from.toLowerCase())
      throw new IndxError("already_exists", `${c.to} already exists`, { path: c.to });
  }

  /**
   * A change's precondition checked again against the disk just before the change is made, its
   * commit point: staging takes tens of ms for a batch, and a save from outside indx (an editor)
   * landing after the plan read the file must not be overwritten (docs/decisions.md, "The
   * editor's save: checked at each replace"). It is the same check as the plan's, on a fresh read;
   * a file this plan has already written is expected at its new etag.
   */
  private recheck(c: Change, applied: Applied): void {
    if (c.type !== "move" && "anything" in c.expect) return;
    const own = c.type === "move" ? applied.etags[c.from] : undefined;
    this.check(own === undefined ? c : { ...c, expect: { etag: own } }, this.freshIO());
  }

  /**
   * Brings the index in line with files already on disk. It never fails the write: an error here
   * would make the caller retry a write that landed, so it becomes a warning, and the next index
   * pass (the watcher, `indx vault index`) catches up.
   */
  private async reindex(paths: string[]): Promise<Warning[]> {
    if (paths.length === 0) return [];
    try {
      await this.ctx.updateIndex({ paths: [...new Set(paths)] }, { origin: "write" });
      return [];
    } catch (err) {
      if (err instanceof IndxError && INDEX_NEEDS_BUILD.has(err.code))
        return [{ code: "index_not_updated", message: `The file was written but the index was not updated: ${err.message}` }];
      debugLog("reindex after a write failed", { error: err });
      return [{ code: "index_not_updated", message: "The file was written but the index was not updated; `indx vault index` brings it up to date." }];
    }
  }
}

type WriteChange = Extract<Change, { type: "write" | "write_bytes" }>;

/** The bytes a write puts on disk. */
function bytesOf(c: WriteChange, io: WriteIO): Uint8Array {
  return c.type === "write_bytes" ? c.bytes : new TextEncoder().encode(fileText(c, io.read(c.path)));
}

/** The text a write puts on disk: a BOM the file had is kept. */
function fileText(c: Extract<Change, { type: "write" }>, before: FileState): string {
  return before.bom ? BOM + c.text : c.text;
}

function journalStep(c: Change, io: WriteIO): JournalStep {
  if (c.type === "move") return { type: "move", from: c.from, to: c.to };
  const before = io.read(c.path);
  if (c.type === "delete") return { type: "delete", path: c.path, before: before.etag };
  if (c.type === "write_bytes")
    return { type: "write", path: c.path, base64: Buffer.from(c.bytes).toString("base64"), before: before.etag, after: etagOf(c.bytes) };
  const text = fileText(c, before);
  return { type: "write", path: c.path, text, before: before.etag, after: etagOf(new TextEncoder().encode(text)) };
}

/**
 * A write that failed part-way, with the files it had replaced (path → new etag): a caller writing
 * many independent notes in one transaction tells the written ones from the rest.
 */
export class PartlyWritten extends IndxError {
  constructor(
    cause: IndxError,
    readonly written: Readonly<Record<string, string>>,
  ) {
    super(cause.code, cause.message, cause.details);
  }
}

/** A failed apply, with how far it got: each file is old or new, never torn. */
function fsError(err: unknown, done: number, total: number): IndxError {
  const e = writeError(err);
  return new IndxError(e.code, e.message, { ...e.details, files_written: done, files_planned: total });
}

/** Folders no write reaches (hidden ones: paths refuse them) or too big to walk for nothing (node_modules). */
function unwrittenFolder(rel: string): boolean {
  const name = rel.slice(rel.lastIndexOf("/") + 1);
  return name.startsWith(".") || name === "node_modules";
}
