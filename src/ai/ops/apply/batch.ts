import { IndxError, toIndxError } from "../../../core/errors.ts";
import { planNotePatch, requireText } from "../../../notes/write-ops.ts";
import type { OpContext } from "../../../ops/context.ts";
import type { Warning } from "../../../ops/schemas.ts";
import { unifiedDiff } from "../../../writes/diff.ts";
import { type Change, type FileState, PartlyWritten, type WriteIO } from "../../../writes/pipeline.ts";
import { normalizeEtag } from "../../../writes/schemas.ts";
import { frontmatterOf, frontmatterOps, type NotePlanner } from "./plan.ts";

/** Notes one transaction takes at most: they share one journal, one reindex and one fsync per folder. */
const BATCH_NOTES = 64;
/** The journal holds the text of every note a batch writes, so a batch also ends once those add up to this. */
const BATCH_CHARS = 4_000_000;

/** A planned edit as a dry run lists it: the note's version and the unified diff of the write. */
export interface PlannedEdit {
  path: string;
  etag: string;
  diff: string;
}

export type Outcome<D> =
  /** Another version than expected: the caller's if_match, or (atReplace) the one the edit was planned from, changed before its replace. */
  | { kind: "conflict"; expected: string; actual: string | null; atReplace: boolean }
  | { kind: "unchanged" }
  | { kind: "failed"; error: IndxError }
  | { kind: "planned"; edit: PlannedEdit; detail: D; text: string }
  | { kind: "written"; etag: string; detail: D };

/** What became of one note of a batch, with the write's own warnings about it (index_not_updated). */
export interface NoteResult<D> {
  path: string;
  outcome: Outcome<D>;
  warnings: Warning[];
}

export interface BatchOptions {
  /** The caller's path → etag: a note at another version is a conflict. */
  ifMatch?: Record<string, string>;
  /** stop (default): the first conflict ends the apply with ai_apply_conflict; skip: a warning, and on. */
  mode?: "stop" | "skip";
  /** Plan every note exactly as an apply would, inside the same locks, and write nothing. */
  dryRun?: boolean;
}

/**
 * Applies the first notes of `pending` (path-sorted) in one VaultWriter.transact and says what
 * became of each note it took — at least one, in order; the caller goes on after them. Each note
 * is planned from its file as read inside the locks and checked against its if_match on its own:
 * in stop mode a mismatch ends the batch there, so the notes before it are written and it is the
 * last one taken. Each note stays one atomic file replace; the batch shares the journal that
 * finishes it after a crash, the reindex and the folder fsyncs (docs/decisions.md, "Writes in
 * batches"). A write failing part-way costs only the note it failed on: the notes written before
 * it are reported written, and those after it are left to the next batch.
 */
export async function applyBatch<D>(ctx: OpContext, op: string, pending: readonly NotePlanner<D>[], opts: BatchOptions): Promise<NoteResult<D>[]> {
  const candidates = pending.slice(0, BATCH_NOTES);
  let planned: NoteResult<D>[] = [];
  try {
    const done = await ctx.writer.transact(
      op,
      candidates.map((p) => p.path),
      (io) => {
        planned = planBatch(ctx, candidates, io, opts);
        return { changes: opts.dryRun ? [] : planned.flatMap(writeOf), value: planned, independent: true };
      },
    );
    return done.value.map((note) => written(note, done.etags, done.warnings));
  } catch (err) {
    return afterFailure(candidates, planned, err);
  }
}

function planBatch<D>(ctx: OpContext, candidates: readonly NotePlanner<D>[], io: WriteIO, opts: BatchOptions): NoteResult<D>[] {
  const notes: NoteResult<D>[] = [];
  let chars = 0;
  for (const planner of candidates) {
    if (chars >= BATCH_CHARS) break;
    const outcome = planSafely(ctx, planner, io, normalizeEtag(opts.ifMatch?.[planner.path]));
    notes.push({ path: planner.path, outcome, warnings: [] });
    if (outcome.kind === "planned") chars += outcome.text.length;
    if (outcome.kind === "conflict" && opts.mode !== "skip") break;
  }
  return notes;
}

function planSafely<D>(ctx: OpContext, planner: NotePlanner<D>, io: WriteIO, expected: string | undefined): Outcome<D> {
  try {
    return planNote(ctx, planner, io.read(planner.path), expected);
  } catch (err) {
    return { kind: "failed", error: toIndxError(err) };
  }
}

/** One note's edit, planned inside the write lock from the note as it is on disk. */
function planNote<D>(ctx: OpContext, planner: NotePlanner<D>, before: FileState, expected: string | undefined): Outcome<D> {
  if (expected !== undefined && !(expected === "*" ? before.exists : before.etag === expected))
    return { kind: "conflict", expected, actual: before.etag, atReplace: false };
  const text = requireText(before);
  const frontmatter = frontmatterOf(planner.path, text);
  const { set, detail } = planner.plan(frontmatter);
  const ops = frontmatterOps(frontmatter, set);
  if (ops.length === 0) return { kind: "unchanged" };
  const result = planNotePatch(ctx, planner.path, text, ops);
  if (!result.changed) return { kind: "unchanged" };
  const etag = before.etag;
  if (etag === null) throw new IndxError("internal", "a note read as text has no etag");
  return { kind: "planned", edit: { path: planner.path, etag, diff: unifiedDiff(planner.path, text, result.text) }, detail, text: result.text };
}

function writeOf<D>({ path, outcome }: NoteResult<D>): Change[] {
  return outcome.kind === "planned" ? [{ type: "write", path, text: outcome.text, expect: { etag: outcome.edit.etag } }] : [];
}

/** A planned note as the pipeline wrote it (every file it replaces has its new etag), with the write's warnings. */
function written<D>(note: NoteResult<D>, etags: Readonly<Record<string, string>>, warnings: readonly Warning[]): NoteResult<D> {
  const etag = etags[note.path];
  if (note.outcome.kind !== "planned" || etag === undefined) return note;
  return { path: note.path, outcome: { kind: "written", etag, detail: note.outcome.detail }, warnings: warnings.map((w) => ({ ...w, path: note.path })) };
}

/**
 * A batch whose transaction failed: the notes it wrote before the failure are written, the one it
 * failed on is `failed` (or a conflict, when it changed on disk before its replace), and the
 * notes after it are not taken. A failure before any note was planned (the vault lock) is the
 * first note's.
 */
function afterFailure<D>(candidates: readonly NotePlanner<D>[], planned: readonly NoteResult<D>[], err: unknown): NoteResult<D>[] {
  const error = toIndxError(err);
  const done = err instanceof PartlyWritten ? err.written : {};
  const at = planned.findIndex((n) => n.outcome.kind === "planned" && done[n.path] === undefined);
  const failed = planned[at];
  if (!failed) {
    const [first] = candidates;
    if (!first) throw new IndxError("internal", "a batch failed with no note in it to report the failure on");
    return [{ path: first.path, outcome: { kind: "failed", error }, warnings: [] }];
  }
  return [...planned.slice(0, at).map((n) => written(n, done, [])), { path: failed.path, outcome: failureOf(failed.outcome, error), warnings: [] }];
}

/** The pipeline found the note at another version than the one its edit was planned from: an editor saved it meanwhile. */
function failureOf<D>(outcome: Outcome<D>, error: IndxError): Outcome<D> {
  if (error.code !== "etag_mismatch" || outcome.kind !== "planned") return { kind: "failed", error };
  const actual = error.details?.actual;
  return { kind: "conflict", expected: outcome.edit.etag, actual: typeof actual === "string" ? actual : null, atReplace: true };
}
