import { type Static, Type } from "@sinclair/typebox";
import { baseTitle } from "../index/build/file-rows.ts";
import { parseNote } from "../markdown/parse.ts";
import { Nullable, OutlineItem, TagList, Warning } from "../ops/schemas.ts";
import type { FileEdit } from "./edit.ts";

export const IfMatch = Type.String({
  minLength: 1,
  maxLength: 64,
  description: "Etag from your read; fails if changed.",
});

export const IfNotExists = Type.Boolean({ default: false, description: "Fail if the file exists." });

export const IdempotencyKey = Type.String({
  minLength: 1,
  maxLength: 200,
  description: "Retry key (24 h).",
});

export const DryRun = Type.Boolean({ default: false, description: "Plan only." });

/** Planned edits of one file, as a dry run shows them. */
export const PlannedFile = Type.Object({
  path: Type.String(),
  etag: Nullable(Type.String({ description: "Etag of the file the plan was made from; null when the write creates it." })),
  changes: Type.Array(Type.Object({ line: Type.Integer(), before: Type.String(), after: Type.String() })),
  diff: Type.Optional(
    Type.String({
      description: "note_write and note_patch previews: the edit as a unified diff (diff -u). Unlike `changes`, exact where lines are added or removed.",
    }),
  ),
});

/** Read-after-write: what a note looks like once written (docs/contracts.md, Writes). */
export const WrittenNote = Type.Object({
  path: Type.String(),
  etag: Type.String({ description: "Pass this as if_match on your next write (a dry run gives the etag the write would make)." }),
  created: Type.Boolean(),
  changed: Type.Boolean({ description: "False when the write left the bytes as they were." }),
  title: Type.String(),
  frontmatter: Nullable(Type.Record(Type.String(), Type.Unknown())),
  frontmatter_error: Type.Optional(Type.String()),
  outline: Type.Array(OutlineItem),
  tags: TagList,
  body: Type.String(),
  warnings: Type.Array(Warning),
  dry_run: Type.Boolean({ description: "True: nothing was written; the note is shown as the write would leave it, with its etag then." }),
  files: Type.Optional(
    Type.Array(PlannedFile, { description: "On a dry run: each file the write would change (a heading rename changes linking notes too)." }),
  ),
});

interface WriteOutcome {
  created: boolean;
  changed: boolean;
  warnings?: Warning[];
  /** A dry run's planned files. */
  planned?: Static<typeof PlannedFile>[];
}

export function writtenNote(path: string, text: string, etag: string, flags: WriteOutcome) {
  const parsed = parseNote(text);
  const fmTitle = parsed.frontmatter?.title;
  return {
    path,
    etag,
    created: flags.created,
    changed: flags.changed,
    title: typeof fmTitle === "string" && fmTitle.trim() ? fmTitle.trim() : baseTitle(path),
    frontmatter: parsed.frontmatter,
    ...(parsed.frontmatterError ? { frontmatter_error: parsed.frontmatterError } : {}),
    outline: parsed.headings.map((h) => ({ level: h.level, text: h.text, line: h.line })),
    tags: parsed.tags,
    body: text.slice(parsed.bodyOffset),
    warnings: flags.warnings ?? [],
    dry_run: flags.planned !== undefined,
    ...(flags.planned ? { files: flags.planned } : {}),
  };
}

/** Accepts an etag as sent in an HTTP header too: `"abc"` or `W/"abc"`. */
export function normalizeEtag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return value
    .trim()
    .replace(/^W\//, "")
    .replace(/^"(.*)"$/, "$1");
}

/** Planned edits as a dry run (and the applied result) shows them: no file text, only line changes. */
export function plannedFiles(edits: readonly FileEdit[]) {
  return edits.map((e) => ({ path: e.path, etag: e.etag, changes: e.changes }));
}

/**
 * A file a multi-file write changed, once written: its new etag and how many lines changed. The
 * lines themselves are the dry run's answer; an applied write does not repeat its plan (issue 30).
 */
export const WrittenFile = Type.Object({
  path: Type.String(),
  etag: Type.String({ description: "The file's etag after the write: pass it as if_match on your next write." }),
  lines_changed: Type.Integer(),
});

/** Each edited file as written: `renamed` maps a path the write moved to where it is now. */
export function writtenFiles(edits: readonly FileEdit[], etags: Readonly<Record<string, string>>, renamed: Readonly<Record<string, string>> = {}) {
  return edits.map((e) => {
    const path = renamed[e.path] ?? e.path;
    return { path, etag: etags[path] ?? "", lines_changed: e.changes.length };
  });
}

/** A multi-file write's files: planned (a dry run: each line before and after) or written (applied). */
export const PlannedOrWrittenFiles = (description: string) => Type.Array(Type.Union([PlannedFile, WrittenFile]), { description });
