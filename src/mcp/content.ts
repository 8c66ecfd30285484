import type { Static, TObject } from "@sinclair/typebox";
import type { Operation } from "../ops/define.ts";

/**
 * The text content of a successful tool result. Many clients pass only `content` to the model,
 * so it carries the whole result, not just the summary line (the MCP spec: a tool with
 * structured output SHOULD also return it serialised as text). The form is chosen for tokens
 * (docs/decisions.md): the summary line, then compact JSON; a result holding a note's text puts
 * that text last, as it is; search hits come one per line.
 */
export function resultText<I extends TObject, O extends TObject>(op: Operation<I, O>, output: Static<O>, input: Static<I>): string {
  const summary = summaryOf(op, output, input);
  if (!isRecord(output)) return `${summary}\n${JSON.stringify(output)}`;
  if (isHitList(output.results)) return [summary, ...hitLines(output.results), JSON.stringify(without(output, "results"))].join("\n");
  const textField = typeof output.content === "string" ? "content" : typeof output.body === "string" ? "body" : null;
  if (textField) return `${summary}\n${JSON.stringify(without(output, textField))}\n\n${output[textField]}`;
  return `${summary}\n${JSON.stringify(output)}`;
}

function summaryOf<I extends TObject, O extends TObject>(op: Operation<I, O>, output: Static<O>, input: Static<I>): string {
  try {
    return op.summary(output, input);
  } catch {
    return `${op.name} succeeded`;
  }
}

interface Hit {
  chunk_id: string;
  heading: string | null;
  line: number;
  score: number;
  snippet: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const isHitList = (v: unknown): v is Hit[] => Array.isArray(v) && v.every((h) => isRecord(h) && typeof h.chunk_id === "string" && typeof h.score === "number");

/** One hit per line: what to read next (chunk_id is `<path>#<chunk>`), where, how good, and why. */
function hitLines(hits: Hit[]): string[] {
  if (hits.length === 0) return [];
  return [
    "score | chunk_id (path#chunk) | line | heading | snippet",
    ...hits.map((h) => `${h.score} | ${h.chunk_id} | ${h.line} | ${h.heading ?? ""} | ${oneLine(h.snippet)}`),
  ];
}

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, " ");

function without(record: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _dropped, ...rest } = record;
  return rest;
}
