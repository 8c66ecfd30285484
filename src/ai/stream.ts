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

/**
 * Follows one string field of a JSON object as the model writes it, so the answer streams as
 * text rather than as JSON fragments: each call gets the whole reply so far and returns what the
 * field gained since the last call. Escapes cut in half wait for their next delta.
 */
export class JsonFieldFollower {
  private text = "";
  private emitted = 0;

  constructor(private readonly field: string) {}

  push(delta: string): string {
    this.text += delta;
    const value = openStringValue(this.text, this.field);
    if (value === null || value.length <= this.emitted) return "";
    const fresh = value.slice(this.emitted);
    this.emitted = value.length;
    return fresh;
  }
}

/** The decoded prefix of a top-level string field in possibly unfinished JSON, or null before it starts. */
function openStringValue(json: string, field: string): string | null {
  const start = new RegExp(`"${field}"\\s*:\\s*"`).exec(json);
  if (!start) return null;
  let out = "";
  for (let i = start.index + start[0].length; i < json.length; i++) {
    const c = json[i]!;
    if (c === '"') return out;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const next = json[i + 1];
    if (next === undefined) return out;
    if (next === "u") {
      const hex = json.slice(i + 2, i + 6);
      if (hex.length < 4) return out;
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += 5;
      continue;
    }
    out += ESCAPES[next] ?? next;
    i++;
  }
  return out;
}

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f" };
