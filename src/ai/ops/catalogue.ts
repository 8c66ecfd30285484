import { aiAsk } from "./ask/ask-ops.ts";
import { aiExtract } from "./extract/extract-ops.ts";
import { aiMetadata } from "./metadata/metadata-ops.ts";
import { aiRelate } from "./relate/relate-ops.ts";
import { aiSummarize } from "./summarize/summarize-ops.ts";
import { aiTag } from "./tag/tag-ops.ts";
import { aiToc } from "./toc/toc-ops.ts";

/**
 * The AI operations that use a model, in the mapping table's order (docs/contracts.md, AI
 * runtime). The registry lists them from here, and ai_status derives what a vault can run from
 * each one's `ai.needs`: a new AI operation is added here once (docs/architecture.md).
 */
export const AI_OPERATIONS = [aiSummarize, aiAsk, aiToc, aiExtract, aiTag, aiMetadata, aiRelate] as const;

/** An AI operation's short name: its registry name without `ai_` (the cache key's and the ai.invocation event's `op`). */
type ShortName<N extends string> = N extends `ai_${infer S}` ? S : never;

/** Derived from AI_OPERATIONS, so a new AI operation needs no second list (docs/architecture.md). */
export type AiOpName = ShortName<(typeof AI_OPERATIONS)[number]["name"]>;

/** The short names at run time, in the catalogue's order. */
export const AI_OP_NAMES: readonly AiOpName[] = AI_OPERATIONS.map((op) => shortName(op.name));

function shortName<N extends string>(name: N): ShortName<N> {
  const short = name.replace(/^ai_/, "");
  // A name outside the pattern would type as never; the catalogue test (test/unit/ai/catalogue.test.ts) keeps every name in it.
  return short as ShortName<N>;
}
