import { aiAsk } from "../ai/ops/ask.ts";
import { aiStatus } from "../ai/ops/status.ts";
import { aiSummarize } from "../ai/ops/summarize.ts";
import { aiToc } from "../ai/ops/toc.ts";
import { baseQuery } from "../bases/ops.ts";
import { canvasPatch, canvasRead, canvasWrite } from "../canvas/ops.ts";
import { linkBacklinks, linkForward, linkOrphans, linkUnresolved } from "../links/ops.ts";
import { noteMove } from "../notes/move-op.ts";
import { noteExists, noteList, noteOutline, noteRead } from "../notes/ops.ts";
import { noteReadMany } from "../notes/read-many.ts";
import { attachmentGet, chunkGet } from "../notes/retrieval.ts";
import { noteDelete, notePatch, noteWrite } from "../notes/write-ops.ts";
import { related, vaultSearch } from "../search/ops.ts";
import { tagList, tagNotes } from "../tags/ops.ts";
import { tagRename } from "../tags/rename-op.ts";
import { vaultConfigSet } from "../vault/config-set-op.ts";
import { vaultConfigGet, vaultReindex, vaultStatus } from "../vault/ops.ts";
import type { AnyOperation } from "./define.ts";

/** Every operation, in the order of the mapping table (docs/contracts.md, Operations). Surfaces list these; they add none. */
export const OPERATIONS: readonly AnyOperation[] = [
  vaultStatus,
  noteRead,
  noteReadMany,
  noteWrite,
  notePatch,
  noteDelete,
  noteMove,
  noteList,
  noteOutline,
  noteExists,
  vaultSearch,
  linkBacklinks,
  linkForward,
  linkUnresolved,
  linkOrphans,
  tagList,
  tagNotes,
  tagRename,
  canvasRead,
  canvasWrite,
  canvasPatch,
  baseQuery,
  vaultReindex,
  vaultConfigGet,
  vaultConfigSet,
  related,
  chunkGet,
  attachmentGet,
  aiStatus,
  aiSummarize,
  aiAsk,
  aiToc,
];

export const OPERATION_BY_NAME = new Map(OPERATIONS.map((op) => [op.name, op]));
