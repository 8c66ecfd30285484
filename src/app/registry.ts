import { AI_OPERATIONS } from "../ai/ops/catalogue.ts";
import { aiStatus } from "../ai/ops/status-ops.ts";
import { attachmentWrite } from "../attachments/write-ops.ts";
import { baseQuery } from "../bases/ops.ts";
import { canvasPatch, canvasRead, canvasWrite } from "../canvas/ops.ts";
import { activateContext } from "../context/ops.ts";
import { linkBacklinks, linkBrokenAnchors, linkForward, linkOrphans, linkUnresolved } from "../links/ops.ts";
import { vaultConfigSet } from "../maintenance/config-set-ops.ts";
import { vaultConfigGet, vaultReindex, vaultStatus } from "../maintenance/ops.ts";
import { vaultList } from "../maintenance/vaults-ops.ts";
import { noteCapture } from "../notes/capture-ops.ts";
import { documentRead } from "../notes/document-ops.ts";
import { noteMove } from "../notes/move-ops.ts";
import { noteExists, noteList, noteOutline, noteRead } from "../notes/ops.ts";
import { noteReadMany } from "../notes/read-many-ops.ts";
import { attachmentGet, chunkGet } from "../notes/retrieval-ops.ts";
import { vaultValidateFrontmatter } from "../notes/validate-ops.ts";
import { noteDelete, notePatch, noteWrite } from "../notes/write-ops.ts";
import type { AnyOperation } from "../ops/define.ts";
import { dailyNote } from "../periodic/ops.ts";
import { related, vaultSearch } from "../search/ops.ts";
import { tagList, tagNotes } from "../tags/ops.ts";
import { tagRename } from "../tags/rename-ops.ts";

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
  noteCapture,
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
  vaultList,
  vaultValidateFrontmatter,
  related,
  activateContext,
  chunkGet,
  attachmentGet,
  documentRead,
  attachmentWrite,
  aiStatus,
  ...AI_OPERATIONS,
];

export const OPERATION_BY_NAME = new Map(OPERATIONS.map((op) => [op.name, op]));
