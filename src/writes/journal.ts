import { existsSync, mkdirSync, readFileSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Static, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { etagOf } from "../core/hash.ts";
import type { NewEvent } from "../events/types.ts";
import type { Vault } from "../vault/vault.ts";
import { renameDurable, unlinkDurable, writeFileAtomic, writeTarget } from "./atomic.ts";
import { trashDestination } from "./trash.ts";

/**
 * One file-level step of a multi-file write, with everything needed to finish it after a crash.
 * Etags tell a step that already happened from one still to do, and from a file someone else
 * changed meanwhile (which recovery leaves alone).
 */
const Etag = Type.Union([Type.String(), Type.Null()]);
const JournalStepSchema = Type.Union([
  Type.Object({ type: Type.Literal("write"), path: Type.String(), before: Etag, after: Type.String(), text: Type.String() }),
  Type.Object({ type: Type.Literal("write"), path: Type.String(), before: Etag, after: Type.String(), base64: Type.String() }),
  Type.Object({ type: Type.Literal("delete"), path: Type.String(), before: Etag }),
  Type.Object({ type: Type.Literal("move"), from: Type.String(), to: Type.String() }),
]);
export type JournalStep = Static<typeof JournalStepSchema>;

/** The journal file as indx writes it: read back only if it still is (checked, never cast). */
const JournalSchema = Type.Object({ op: Type.String(), started_at: Type.String(), steps: Type.Array(JournalStepSchema) });
type Journal = Static<typeof JournalSchema>;

const FILE = "write-journal.json";

/**
 * A multi-file write (note_move, tag_rename, rename_heading) is made crash-atomic by rolling
 * forward: its steps are written to the data directory first; if the process dies part-way,
 * the next writer (or serve / indx mcp / vault index at start) finishes them.
 */
export class WriteJournal {
  private readonly file: string;

  constructor(dataDir: string) {
    this.file = join(dataDir, FILE);
  }

  begin(op: string, steps: JournalStep[]): void {
    const journal: Journal = { op, started_at: new Date().toISOString(), steps };
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileAtomic(this.file, new TextEncoder().encode(JSON.stringify(journal)), { mode: 0o600 });
  }

  finish(): void {
    try {
      unlinkSync(this.file);
    } catch {}
  }

  pending(): boolean {
    return existsSync(this.file);
  }

  /**
   * Finishes an interrupted write. Returns the paths the write touched (before the crash or now)
   * and the events it owes; an unreadable journal is dropped (it can only be one written half-way,
   * before any file was).
   */
  recover(vault: Vault): { op: string; touched: string[]; events: NewEvent[]; skipped: string[] } | null {
    if (!this.pending()) return null;
    let journal: unknown;
    try {
      journal = JSON.parse(readFileSync(this.file, "utf8"));
    } catch {
      journal = null;
    }
    if (!Value.Check(JournalSchema, journal)) {
      this.finish();
      return null;
    }
    const touched: string[] = [];
    const events: NewEvent[] = [];
    const skipped: string[] = [];
    const op = `${journal.op} (recovered)`;
    for (const step of journal.steps ?? []) {
      let done: ReturnType<typeof replay>;
      try {
        done = replay(vault, step);
      } catch {
        done = "skipped"; // an unwritable file must not block every later write
      }
      if (done === "skipped") {
        skipped.push(step.type === "move" ? step.from : step.path);
        continue;
      }
      // A step done before the crash is owed its reindex and event as much as one done now: the
      // writer does both only after its last step.
      if (step.type === "write") {
        touched.push(step.path);
        events.push({ kind: step.before === null ? "note.created" : "note.updated", source: "indx", op, path: step.path, etag: step.after });
      } else if (step.type === "delete") {
        touched.push(step.path);
        events.push({ kind: "note.deleted", source: "indx", op, path: step.path });
      } else {
        touched.push(step.from, step.to);
        events.push({ kind: "note.moved", source: "indx", op, from: step.from, to: step.to });
      }
    }
    this.finish();
    return { op: journal.op, touched, events, skipped };
  }
}

/** applied: done now; done: it had happened before the crash; skipped: someone else changed the file. */
function replay(vault: Vault, step: JournalStep): "applied" | "done" | "skipped" {
  if (step.type === "move") {
    const from = vault.abs(step.from);
    const to = vault.abs(step.to);
    if (!existsSync(from)) return existsSync(to) ? "done" : "skipped";
    if (existsSync(to)) return "skipped";
    mkdirSync(dirname(to), { recursive: true });
    renameDurable(from, to);
    return "applied";
  }
  const abs = vault.abs(step.path);
  const current = existsSync(abs) ? etagOf(readFileSync(abs)) : null;
  if (step.type === "write") {
    if (current === step.after) return "done";
    if (current !== step.before) return "skipped";
    if (current === null) mkdirSync(dirname(abs), { recursive: true });
    writeFileAtomic(writeTarget(abs), "text" in step ? new TextEncoder().encode(step.text) : Buffer.from(step.base64, "base64"));
    return "applied";
  }
  if (current === null) return "done";
  if (current !== step.before) return "skipped";
  const trash = trashDestination(vault, step.path);
  if (trash) {
    mkdirSync(dirname(trash), { recursive: true });
    renameDurable(abs, trash);
  } else unlinkDurable(abs);
  return "applied";
}
