import { aiAsk } from "../ai/ops/ask/ask-ops.ts";
import { aiExtract } from "../ai/ops/extract/extract-ops.ts";
import { aiMetadata } from "../ai/ops/metadata/metadata-ops.ts";

import { aiRelate } from "../ai/ops/relate/relate-ops.ts";
import { aiStatus } from "../ai/ops/status-ops.ts";
import { aiSummarize } from "../ai/ops/summarize/summarize-ops.ts";
import { aiTag } from "../ai/ops/tag/tag-ops.ts";
import { aiToc } from "../ai/ops/toc/toc-ops.ts";
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
import { noteExists, noteList, noteRead } from "../notes/ops.ts";
import { noteReadMany } from "../notes/read-many-ops.ts";
import { attachmentGet, chunkGet } from "../notes/retrieval-ops.ts";
import { vaultValidateFrontmatter } from "../notes/validate-ops.ts";
import { noteDelete, notePatch, noteWrite } from "../notes/write-ops.ts";
import type { AnyOperation } from "../ops/define.ts";
import { dailyNote } from "../periodic/ops.ts";
import { related, vaultSearch } from "../search/ops.ts";
import { tagList, tagNotes } from "../tags/ops.ts";
import { tagRename } from "../tags/rename-ops.ts";

export type Method = "GET" | "POST" | "HEAD" | "PUT" | "PATCH" | "DELETE";

/**
 * The REST face of the mapping table (docs/contracts.md, Operations). A vault path may hold
 * slashes, so it is the wildcard tail of the URL; `suffix` tells routes that share a prefix apart
 * (/v1/links/{path}/backlinks vs /forward), and `wildParam` names the input it fills.
 */
export interface Route {
  method: Method;
  /** Fixed prefix; when `wildParam` is set, everything after it (minus `suffix`) is the parameter. */
  prefix: string;
  suffix?: string;
  wildParam?: string;
  /** Turns the wildcard text into the input value (chunk ids come as <path>/<index>). */
  wildValue?: (tail: string) => string;
  op: AnyOperation;
  /** Where the rest of the input comes from. */
  input: "query" | "body";
  /**
   * A body that is not JSON is the bytes of this field (handed on as base64), bounded by the
   * config key `limitKey`; the rest of the input then comes from the query string.
   */
  raw?: { field: string; limitKey: string };
  /** Special responses: the ETag header, HEAD existence, raw attachment bytes. */
  respond?: "etag" | "exists" | "attachment" | "written";
}

export const ROUTES: readonly Route[] = [
  { method: "GET", prefix: "/v1/vault/status", op: vaultStatus, input: "query" },
  { method: "POST", prefix: "/v1/vault/reindex", op: vaultReindex, input: "body" },
  { method: "GET", prefix: "/v1/vault/config", op: vaultConfigGet, input: "query" },
  { method: "PUT", prefix: "/v1/vault/config", op: vaultConfigSet, input: "body" },
  { method: "GET", prefix: "/v1/vaults", op: vaultList, input: "query" },
  { method: "GET", prefix: "/v1/vault/validate-frontmatter", op: vaultValidateFrontmatter, input: "query" },
  { method: "GET", prefix: "/v1/notes", op: noteList, input: "query" },
  { method: "POST", prefix: "/v1/notes/read-many", op: noteReadMany, input: "body" },
  { method: "POST", prefix: "/v1/notes/capture", op: noteCapture, input: "body" },
  { method: "GET", prefix: "/v1/notes/", wildParam: "path", op: noteRead, input: "query", respond: "etag" },
  { method: "HEAD", prefix: "/v1/notes/", wildParam: "path", op: noteExists, input: "query", respond: "exists" },
  { method: "PUT", prefix: "/v1/notes/", wildParam: "path", op: noteWrite, input: "body", respond: "written" },
  { method: "PATCH", prefix: "/v1/notes/", wildParam: "path", op: notePatch, input: "body", respond: "written" },
  { method: "DELETE", prefix: "/v1/notes/", wildParam: "path", op: noteDelete, input: "query" },
  { method: "POST", prefix: "/v1/notes/", suffix: "/move", wildParam: "from", op: noteMove, input: "body", respond: "written" },
  { method: "POST", prefix: "/v1/daily", op: dailyNote, input: "body", respond: "written" },
  { method: "GET", prefix: "/v1/search", op: vaultSearch, input: "query" },
  { method: "POST", prefix: "/v1/search", op: vaultSearch, input: "body" },
  { method: "GET", prefix: "/v1/related", op: related, input: "query" },
  { method: "POST", prefix: "/v1/related", op: related, input: "body" },
  { method: "POST", prefix: "/v1/context", op: activateContext, input: "body" },
  { method: "GET", prefix: "/v1/links/unresolved", op: linkUnresolved, input: "query" },
  { method: "GET", prefix: "/v1/links/broken-anchors", op: linkBrokenAnchors, input: "query" },
  { method: "GET", prefix: "/v1/links/orphans", op: linkOrphans, input: "query" },
  { method: "GET", prefix: "/v1/links/", suffix: "/backlinks", wildParam: "path", op: linkBacklinks, input: "query" },
  { method: "GET", prefix: "/v1/links/", suffix: "/forward", wildParam: "path", op: linkForward, input: "query" },
  { method: "GET", prefix: "/v1/tags", op: tagList, input: "query" },
  { method: "POST", prefix: "/v1/tags/rename", op: tagRename, input: "body" },
  { method: "GET", prefix: "/v1/tags/", suffix: "/notes", wildParam: "tag", op: tagNotes, input: "query" },
  {
    method: "GET",
    prefix: "/v1/chunks/",
    wildParam: "id",
    wildValue: (tail) => tail.replace(/\/(\d+)$/, "#$1"),
    op: chunkGet,
    input: "query",
  },
  { method: "GET", prefix: "/v1/canvas/", wildParam: "path", op: canvasRead, input: "query", respond: "etag" },
  { method: "PUT", prefix: "/v1/canvas/", wildParam: "path", op: canvasWrite, input: "body", respond: "written" },
  { method: "PATCH", prefix: "/v1/canvas/", wildParam: "path", op: canvasPatch, input: "body", respond: "written" },
  { method: "POST", prefix: "/v1/bases/query", op: baseQuery, input: "body" },
  { method: "GET", prefix: "/v1/bases/", suffix: "/query", wildParam: "path", op: baseQuery, input: "query" },
  { method: "GET", prefix: "/v1/attachments/", wildParam: "path", op: attachmentGet, input: "query", respond: "attachment" },
  { method: "GET", prefix: "/v1/documents/", wildParam: "path", op: documentRead, input: "query" },
  {
    method: "POST",
    prefix: "/v1/attachments",
    op: attachmentWrite,
    input: "body",
    raw: { field: "data_base64", limitKey: "writes.max_attachment_bytes" },
    respond: "written",
  },
  { method: "GET", prefix: "/v1/ai/status", op: aiStatus, input: "query" },
  { method: "POST", prefix: "/v1/ai/summarize", op: aiSummarize, input: "body" },
  { method: "POST", prefix: "/v1/ai/ask", op: aiAsk, input: "body" },
  { method: "POST", prefix: "/v1/ai/toc", op: aiToc, input: "body" },
  { method: "POST", prefix: "/v1/ai/extract", op: aiExtract, input: "body" },
  { method: "POST", prefix: "/v1/ai/tag", op: aiTag, input: "body" },
  { method: "POST", prefix: "/v1/ai/metadata", op: aiMetadata, input: "body" },

  { method: "POST", prefix: "/v1/ai/relate", op: aiRelate, input: "body" },
];

/** The OpenAPI path template of a route, e.g. /v1/links/{path}/backlinks. */
export function templateOf(r: Route): string {
  if (!r.wildParam) return r.prefix;
  const name = r.wildParam === "id" ? "path}/{index" : r.wildParam;
  return `${r.prefix}{${name}}${r.suffix ?? ""}`;
}

/** Finds the route for a method and a URL path (already percent-decoded per segment). */
export function matchRoute(method: string, path: string): { route: Route; tail: string | null } | null {
  const m = method === "HEAD" ? ["HEAD", "GET"] : [method];
  for (const want of m) {
    for (const r of ROUTES) {
      if (r.method !== want) continue;
      if (!r.wildParam) {
        if (path === r.prefix || path === `${r.prefix}/`) return { route: r, tail: null };
        continue;
      }
      if (!path.startsWith(r.prefix) || path.length <= r.prefix.length) continue;
      let tail = path.slice(r.prefix.length);
      if (r.suffix) {
        if (!tail.endsWith(r.suffix)) continue;
        tail = tail.slice(0, -r.suffix.length);
      } else if (ROUTES.some((o) => o !== r && o.method === r.method && o.prefix === r.prefix && o.suffix && tail.endsWith(o.suffix))) {
        continue;
      }
      if (!tail) continue;
      return { route: r, tail: r.wildValue ? r.wildValue(tail) : tail };
    }
  }
  return null;
}
