import { type Static, Type } from "@sinclair/typebox";
import { IndxError, toIndxError } from "../core/errors.ts";
import { defineOp } from "../ops/define.ts";
import { INPUT_LIMITS, PATH_MARK } from "../ops/schemas.ts";
import { globToRegExp } from "../vault/glob.ts";
import { type NoteOnDisk, readNote, statNote } from "../vault/read.ts";
import { countLines } from "./line-range.ts";
import { LineRangeOutput } from "./ops.ts";

/** Bounds of one call (docs/contracts.md, Bulk reads). */
export const READ_MANY = { maxPaths: 100, maxMatches: 1_000, defaultBudget: 64 * 1024, maxBudget: 1024 * 1024 } as const;

const ReadNote = Type.Object({
  path: Type.String(),
  etag: Type.String({ description: "The whole note's etag, also when it is truncated: pass it as if_match." }),
  size: Type.Integer({ description: "Bytes of the whole note." }),
  mtime: Type.String(),
  content: Type.String({ description: "The note's text as on disk (frontmatter included), or its first lines when truncated." }),
  truncated: Type.Optional(Type.Literal(true)),
  range: Type.Optional(Type.Omit(LineRangeOutput, ["text"], { description: "The lines a truncated note holds: read on with note_read from=to+1." })),
});

const Omitted = Type.Object({
  path: Type.String(),
  size: Type.Integer({ description: "Bytes of the note: what it would take of a budget." }),
});

const Failed = Type.Object({
  path: Type.String({ description: "The path as asked for." }),
  code: Type.String({ description: "The error code note_read would give (not_found, path_invalid, parse_failed…)." }),
  message: Type.String(),
});

const ReadManyOutput = Type.Object({
  notes: Type.Array(ReadNote),
  omitted: Type.Array(Omitted, { description: "Notes found but not returned, in order, because the budget ran out." }),
  errors: Type.Array(Failed),
  matched: Type.Integer({ description: "Notes asked for: the paths given (without repeats), or the notes the glob matched." }),
  budget_bytes: Type.Integer(),
  used_bytes: Type.Integer({ description: "UTF-8 bytes of the returned text." }),
});

export const noteReadMany = defineOp({
  name: "note_read_many",
  errors: [],
  title: "Read several notes at once",
  description: "Read notes by paths or glob, whole, within budget_bytes; the rest are listed as omitted.",
  scope: "vault:read",
  safe: true,
  input: Type.Object(
    {
      paths: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: INPUT_LIMITS.pathChars, [PATH_MARK]: true }), {
          minItems: 1,
          maxItems: READ_MANY.maxPaths,
          description: "Paths, read in this order.",
        }),
      ),
      glob: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: "Notes matching a glob, e.g. 'Projects/**'." })),
      budget_bytes: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: READ_MANY.maxBudget,
          default: READ_MANY.defaultBudget,
          description: "Max bytes of note text.",
        }),
      ),
      truncate: Type.Optional(Type.Boolean({ default: false, description: "Cut the note past the budget." })),
    },
    { additionalProperties: false },
  ),
  output: ReadManyOutput,
  run(ctx, input) {
    if ((input.paths === undefined) === (input.glob === undefined))
      throw new IndxError("validation_failed", "Give either paths or glob.", { field: input.paths ? "glob" : "paths" });
    const asked = input.paths ? [...new Set(input.paths)] : globMatches(ctx.index.files.notes(), input.glob ?? "");
    if (asked.length > READ_MANY.maxMatches)
      throw new IndxError("validation_failed", `The glob matches ${asked.length} notes, more than ${READ_MANY.maxMatches}: narrow it.`, {
        field: "glob",
        matched: asked.length,
      });
    const budget = input.budget_bytes ?? READ_MANY.defaultBudget;
    const out: Static<typeof ReadManyOutput> = { notes: [], omitted: [], errors: [], matched: asked.length, budget_bytes: budget, used_bytes: 0 };
    // Once a note is left out, so is every later one: the order stays the caller's, and the next call starts at omitted[0].
    let stopped = false;
    const fits = (bytes: number) => !stopped && out.used_bytes + bytes <= budget;
    const take = (note: Static<typeof ReadNote>) => {
      out.notes.push(note);
      out.used_bytes += Buffer.byteLength(note.content);
    };
    for (const path of asked) {
      try {
        const file = statNote(ctx.vault, path);
        if (!fits(file.size) && (stopped || !input.truncate)) {
          stopped = true;
          out.omitted.push({ path: file.path, size: file.size });
          continue;
        }
        const note = readNote(ctx.vault, file.path);
        if (fits(note.size)) take(whole(note));
        else {
          stopped = true;
          const cut = input.truncate ? firstLines(note, budget - out.used_bytes) : null;
          if (cut) take(cut);
          else out.omitted.push({ path: note.path, size: note.size });
        }
      } catch (err) {
        const e = toIndxError(err);
        out.errors.push({ path, code: e.code, message: e.message });
      }
    }
    return out;
  },
  summary: (o) =>
    `${o.notes.length} of ${o.matched} notes (${o.used_bytes} of ${o.budget_bytes} bytes)${o.omitted.length ? `, ${o.omitted.length} omitted` : ""}${o.errors.length ? `, ${o.errors.length} failed` : ""}`,
});

/** Indexed notes whose path matches the glob, in path order. */
function globMatches(notes: readonly { path: string }[], glob: string): string[] {
  const re = globToRegExp(glob);
  return notes
    .map((n) => n.path)
    .filter((p) => re.test(p))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function whole(note: NoteOnDisk): Static<typeof ReadNote> {
  return { path: note.path, etag: note.etag, size: note.size, mtime: note.mtime, content: note.text };
}

/** The note's leading whole lines within `bytes`, or null when not even its first line fits. */
function firstLines(note: NoteOnDisk, bytes: number): Static<typeof ReadNote> | null {
  // lastIndexOf counts a negative offset from the end: an exhausted budget must not search at all.
  if (bytes <= 0) return null;
  const encoded = Buffer.from(note.text);
  const lastBreak = encoded.lastIndexOf(0x0a, bytes - 1);
  if (lastBreak === -1) return null;
  const content = encoded.subarray(0, lastBreak + 1).toString("utf8");
  const to = countLines(content);
  return { ...whole(note), content, truncated: true, range: { from: 1, to, total_lines: countLines(note.text) } };
}
