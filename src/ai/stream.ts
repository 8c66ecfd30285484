import type { AiUsage } from "../providers/types.ts";
import type { Citation } from "./citations.ts";

/**
 * What an AI operation streams while it runs (docs/contracts.md, AI runtime: streaming): text as
 * the model writes it, each citation once verified, the running usage, and last the whole result.
 * REST sends these as server-sent events, the CLI as NDJSON lines, MCP as progress notifications.
 */
export type AiStreamEvent =
  | { type: "ai.partial"; delta: string }
  | { type: "ai.citation"; citation: Citation }
  | { type: "ai.usage"; usage: AiUsage }
  | { type: "ai.complete"; data: unknown };

export type AiStreamSink = (event: AiStreamEvent) => void;
