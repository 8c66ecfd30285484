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
