import { unifiedDiff } from "./diff.ts";
import { type LineChange, lineChanges } from "./edit.ts";
import type { FileState } from "./pipeline.ts";

/** One file a dry run would write, as note_write and note_patch previews show it. */
export interface PlannedWrite {
  path: string;
  /** The version the plan was made from; null for a file the write would create. */
  etag: string | null;
  changes: LineChange[];
  diff: string;
}

export function plannedWrite(before: FileState, text: string): PlannedWrite {
  const old = before.exists ? (before.text ?? "") : null;
  return { path: before.path, etag: before.etag, changes: lineChanges(old ?? "", text), diff: unifiedDiff(before.path, old, text) };
}
