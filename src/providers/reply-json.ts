import { ProviderError } from "./types.ts";

/**
 * Reading a model's reply as JSON without letting the reply decide how long it takes
 * (docs/decisions.md, "AI replies that cannot block the server"): one linear pass checks the
 * nesting before JSON.parse and the schema checks recurse through it, and nothing here backtracks.
 */

/** Deeper than any reply schema the runtime sends (caller schemas nest at most 12 levels, src/ai/ops/extract/schema-subset.ts). */
export const MAX_REPLY_DEPTH = 64;

/** The deepest nesting of objects and arrays in a JSON text (strings skipped), stopping once past `stopAbove`. */
export function jsonDepth(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > stopAbove) return deepest;
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

/**
 * The reply as JSON, also when a model wrapped it in prose or a code fence; undefined when it is
 * not JSON. Throws reply_too_large when it nests deeper than MAX_REPLY_DEPTH.
 */
export function parseReplyJson(text: string): unknown {
  const body = unfenced(text.trim());
  if (jsonDepth(body, MAX_REPLY_DEPTH) > MAX_REPLY_DEPTH)
    throw new ProviderError("reply_too_large", `the reply's JSON nests deeper than ${MAX_REPLY_DEPTH} levels`);
  const whole = tryParse(body);
  if (whole !== undefined) return whole;
  // Prose around one object: from the first "{" to the last "}" (indexOf, not a backtracking regex).
  const start = body.indexOf("{");
  const end = body.lastIndexOf("}");
  return start >= 0 && end > start ? tryParse(body.slice(start, end + 1)) : undefined;
}

/** The inside of a Markdown code fence around the whole text (some models fence JSON even in structured-output mode). */
function unfenced(text: string): string {
  if (!text.startsWith("```") || !text.endsWith("```") || text.length < 6) return text;
  const firstLine = text.indexOf("\n");
  if (firstLine < 0) return text;
  const info = text.slice(3, firstLine).trim();
  if (info !== "" && info !== "json") return text;
  return text.slice(firstLine + 1, -3).trim();
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
