import type { ReadResourceResult, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import { aiSummarize } from "../ai/ops/summarize/summarize-ops.ts";
import { aiToc } from "../ai/ops/toc/toc-ops.ts";
import type { OpContext } from "../ops/context.ts";
import { invoke } from "../ops/invoke.ts";
import { type AiUri, parseAiUri } from "./ai-uris.ts";

/**
 * The live AI resources (docs/mcp.md, AI resources): ai://summary/… is what ai_summarize returns
 * for the scope, ai://moc/… what ai_toc in moc mode returns, each with the operation's defaults.
 * A read is an ordinary call of the operation, so the AI cache, quota, globs and grounding apply.
 */

const SCOPE_WORDS =
  "kind is paths, glob, tag, query or note; value is the glob, tag, query text or note path as one percent-encoded component ('/' is %2F), or for paths the paths comma-separated; query takes ?mode=&limit=, note ?include_linked=. Example: ai://summary/glob/Projects%2F**. Subscribe to hear when a note the result was derived from changes, or a note joins or leaves the scope.";

export const AI_RESOURCE_TEMPLATES: ResourceTemplate[] = [
  {
    uriTemplate: "ai://summary/{kind}/{value}{?mode,limit,include_linked}",
    name: "ai_summary",
    title: "A live summary of a scope",
    description: `What ai_summarize returns for the scope (JSON, grounded with citations). ${SCOPE_WORDS}`,
    mimeType: "application/json",
  },
  {
    uriTemplate: "ai://moc/{kind}/{value}{?mode,limit,include_linked}",
    name: "ai_moc",
    title: "A live map of content for a scope",
    description: `What ai_toc in moc mode returns for the scope (JSON: markdown and tree, grouped by folder). ${SCOPE_WORDS}`,
    mimeType: "application/json",
  },
];

/** Runs the operation behind an AI resource. */
export async function deriveAiResource(ctx: OpContext, target: AiUri): Promise<unknown> {
  return target.resource === "summary" ? invoke(aiSummarize, ctx, { scope: target.scope }) : invoke(aiToc, ctx, { mode: "moc", scope: target.scope });
}

export async function readAiResource(ctx: OpContext, uri: string): Promise<ReadResourceResult> {
  const data = await deriveAiResource(ctx, parseAiUri(uri));
  return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(data) }] };
}
