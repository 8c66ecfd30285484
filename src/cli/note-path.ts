import type { App } from "../app/context.ts";
import { fileExists } from "../app/note-names.ts";
import { IndxError } from "../core/errors.ts";

/** `Note.md:12` (from line 12 on) and `Note.md:12-40` (lines 12 to 40), as editors and grep print them. */
const LINE_SUFFIX = /^(.+):(\d+)(?:-(\d+))?$/;

/**
 * A typed path with a line suffix, split into the path and the from/lines inputs. A file whose
 * name really ends that way is read whole. Obsidian refuses ':' in file names, so the suffix is
 * rarely ambiguous.
 */
export function splitLineSuffix(ctx: App, typed: string): { path: string; from?: number; lines?: number } {
  const m = LINE_SUFFIX.exec(typed);
  const path = m?.[1];
  if (!m || path === undefined || fileExists(ctx, typed)) return { path: typed };
  const from = Number(m[2]);
  if (m[3] === undefined) return { path, from };
  const to = Number(m[3]);
  if (to < from) throw new IndxError("validation_failed", `The line range ${from}-${to} ends before it starts.`, { field: "path" });
  return { path, from, lines: to - from + 1 };
}
