import { aiAsk } from "../ai/ops/ask.ts";
import { aiExtract } from "../ai/ops/extract.ts";
import { aiMetadata } from "../ai/ops/metadata.ts";

import { aiRelate } from "../ai/ops/relate.ts";
import { aiStatus } from "../ai/ops/status.ts";
import { aiSummarize } from "../ai/ops/summarize.ts";
import { aiTag } from "../ai/ops/tag.ts";
import { aiToc } from "../ai/ops/toc.ts";
import { attachmentWrite } from "../attachments/write-op.ts";
import { baseQuery } from "../bases/ops.ts";
import { canvasPatch, canvasRead, canvasWrite } from "../canvas/ops.ts";
import { activateContext } from "../context/ops.ts";
import { linkBacklinks, linkBrokenAnchors, linkForward, linkOrphans, linkUnresolved } from "../links/ops.ts";
import { noteMove } from "../notes/move-op.ts";
import { noteExists, noteList, noteOutline, noteRead } from "../notes/ops.ts";
import { noteReadMany } from "../notes/read-many.ts";
import { attachmentGet, chunkGet } from "../notes/retrieval.ts";
import { noteDelete, notePatch, noteWrite } from "../notes/write-ops.ts";
import { dailyNote } from "../periodic/ops.ts";
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
  dailyNote,
  vaultSearch,
  linkBacklinks,
  linkForward,
  linkUnresolved,
  linkBrokenAnchors,
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
  activateContext,
  chunkGet,
  attachmentGet,
  attachmentWrite,
  aiStatus,
  aiSummarize,
  aiAsk,
  aiToc,
  aiExtract,
  aiTag,
  aiMetadata,

  aiRelate,
];

export const OPERATION_BY_NAME = new Map(OPERATIONS.map((op) => [op.name, op]));
