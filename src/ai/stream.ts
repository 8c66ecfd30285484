import type { Citation } from "./citations.ts";
import type { AiUsage } from "./types.ts";

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
 * text rather than as JSON fragments: each call gets the reply's next delta and returns what the
 * field gained with it. It reads each character once (a small JSON scanner that keeps its state
 * between deltas), so following a reply costs time linear in the reply, however it is cut up
 * (docs/decisions.md, "AI replies that cannot block the server"). Escapes and surrogate pairs cut
 * in half wait for their next delta. The field is the first key of that name at the top level.
 */
export class JsonFieldFollower {
  /** Objects and arrays open around the scanner; the field's value is at depth 1. */
  private depth = 0;
  private inString = false;
  /** The string being scanned is a top-level key: its text, up to one character past the field's name. */
  private key: string | null = null;
  /** Inside the top-level object, the next string is a key. */
  private expectKey = false;
  /** The last top-level key read, until its value starts. */
  private lastKey: string | null = null;
  /** Inside the field's string value. */
  private following = false;
  private done = false;
  /** An escape cut off at the end of a delta. */
  private pending = "";
  /** A high surrogate decoded at the end of a delta, sent with its low half. */
  private held = "";

  constructor(private readonly field: string) {}

  push(delta: string): string {
    if (this.done) return "";
    const text = this.pending + delta;
    this.pending = "";
    let out = "";
    for (let i = 0; i < text.length && !this.done; i++) {
      if (this.following) {
        // The field's plain run up to the next quote or backslash goes out as one slice.
        let j = i;
        while (j < text.length && text.charCodeAt(j) !== 0x22 && text.charCodeAt(j) !== 0x5c) j++;
        if (j > i) {
          out += text.slice(i, j);
          i = j - 1;
          continue;
        }
      }
      const c = text[i]!;
      if (this.inString) {
        if (c === '"') {
          this.endString();
          continue;
        }
        let decoded = c;
        if (c === "\\") {
          const sequence = readEscape(text, i);
          if (sequence === null) {
            this.pending = text.slice(i);
            break;
          }
          decoded = sequence.text;
          i = sequence.end - 1;
        }
        if (this.following) out += decoded;
        else if (this.key !== null && this.key.length <= this.field.length) this.key += decoded;
        continue;
      }
      this.structural(c);
    }
    out = this.held + out;
    this.held = "";
    // A high surrogate waits for its low half, so no delta carries half a character.
    const last = out.charCodeAt(out.length - 1);
    if (last >= 0xd800 && last <= 0xdbff && !this.done) {
      this.held = out.slice(-1);
      out = out.slice(0, -1);
    }
    return out;
  }

  private endString(): void {
    this.inString = false;
    if (this.following) {
      this.following = false;
      this.done = true;
    } else if (this.key !== null) {
      this.lastKey = this.key;
      this.key = null;
    }
  }

  private structural(c: string): void {
    if (c === '"') {
      this.inString = true;
      if (this.depth === 1 && this.expectKey) {
        this.key = "";
        this.expectKey = false;
      } else if (this.depth === 1 && this.lastKey === this.field) this.following = true;
      else this.lastKey = null;
      return;
    }
    if (c === "{" || c === "[") {
      this.depth++;
      if (this.depth === 1) this.expectKey = c === "{";
      else if (this.depth === 2) this.lastKey = null;
    } else if (c === "}" || c === "]") this.depth--;
    else if (c === "," && this.depth === 1) {
      this.expectKey = true;
      this.lastKey = null;
    } else if (c !== ":" && c.trim() !== "" && this.depth === 1) this.lastKey = null;
  }
}

/** The escape at `i` of `text` (which holds a backslash there), or null when it is cut off. */
function readEscape(text: string, i: number): { text: string; end: number } | null {
  const next = text[i + 1];
  if (next === undefined) return null;
  if (next !== "u") return { text: ESCAPES[next] ?? next, end: i + 2 };
  if (i + 6 > text.length) return null;
  const code = Number.parseInt(text.slice(i + 2, i + 6), 16);
  const unit = Number.isNaN(code) ? "\ufffd" : String.fromCharCode(code);
  return { text: unit, end: i + 6 };
}

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f" };
